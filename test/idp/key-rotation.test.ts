import { signingKey, withProvider } from '../helpers/oidc-provider';
import { bearer, call, sleep, withApis, type GuardedApi } from './guarded-apis';

// Key rotation at the provider: it is restarted on the same port with a new key set. The key-set
// timings are set short so that the test waits for them only briefly.
const API = 'https://api.test';
const COOLDOWN_MS = 200;
const MAX_AGE_MS = 1000;
const provider = withProvider(async () => ({
  keys: [await signingKey('RS256', 'rsa-1')],
  resources: { [API]: { scope: 'accounts:read', alg: 'RS256' } },
  clients: [{ id: 'auditor', claims: { groups: ['auditor'] } }],
}));
const jwt = (timings: Record<string, number>) => ({ issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['RS256'], audience: API, ...timings });
// A short cooldown (new kids are looked up soon) and the default cacheMaxAge (10 minutes).
const shortCooldown = withApis(() => ({ jwt: jwt({ cooldownDuration: COOLDOWN_MS }), roleBinding: 'groups' }));
// The default cooldown (30 s) and a short cacheMaxAge.
const shortMaxAge = withApis(() => ({ jwt: jwt({ cacheMaxAge: MAX_AGE_MS }), roleBinding: 'groups' }));

let oldToken: string;
let newToken: string;
const status = async (api: GuardedApi, token: string) => [api.name, (await call(api.reportsUrl(), bearer(token))).status];

test('after the cooldown a new kid is found; a cached token of the removed key is refused', async () => {
  oldToken = await provider().token('auditor');
  for (const api of [...shortCooldown(), ...shortMaxAge()]) expect(await status(api, oldToken)).toEqual([api.name, 200]);

  await provider().restart({ keys: [await signingKey('RS256', 'rsa-2')] });
  newToken = await provider().token('auditor');
  await sleep(COOLDOWN_MS + 50);

  for (const api of shortCooldown()) {
    expect(await status(api, newToken)).toEqual([api.name, 200]);
    // Verified and cached before the rotation; its kid has now left the set.
    expect(await status(api, oldToken)).toEqual([api.name, 401]);
  }
});

test('once the set is older than cacheMaxAge it is fetched again: the removed key stops verifying, cached tokens too, and the new key is found despite the long cooldown', async () => {
  await sleep(MAX_AGE_MS + 50);
  for (const api of shortMaxAge()) {
    expect(await status(api, oldToken)).toEqual([api.name, 401]);
    expect(await status(api, newToken)).toEqual([api.name, 200]);
  }
});
