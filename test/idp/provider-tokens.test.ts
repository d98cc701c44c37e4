import { bearer, call, sleep, untilExpired, withApis } from './guarded-apis';
import { withProvider } from '../helpers/oidc-provider';

// Real access tokens from oidc-provider (client_credentials, JWT access tokens for the resource
// https://api.test) through every adapter, with the key set fetched from the provider's jwks_uri.
const API = 'https://api.test';
const OTHER = 'https://other.test';
const RESOURCES = { [API]: { scope: 'accounts:read' }, [OTHER]: { scope: 'accounts:read' } };
const CLIENTS = [
  { id: 'reader-rs', alg: 'RS256' as const, claims: { groups: ['reader'], accountId: 'acc-1' } },
  { id: 'reader-es', alg: 'ES256' as const, auth: 'client_secret_post' as const, claims: { groups: ['reader'], accountId: 'acc-1' } },
  { id: 'auditor', alg: 'RS256' as const, claims: { groups: ['auditor'] } },
  { id: 'short', alg: 'ES256' as const, ttlSeconds: 1, claims: { groups: ['auditor'] } },
];

const provider = withProvider({ resources: RESOURCES, clients: CLIENTS });
// Another provider with the same keys (so its tokens verify against the first one's key set) but
// its own issuer: only the iss check can refuse its tokens.
const stranger = withProvider(async () => ({ keys: provider().keys, resources: RESOURCES, clients: CLIENTS }));

const apis = withApis(() => ({
  jwt: { issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['RS256', 'ES256'], audience: API, requiredClaims: ['exp'], clockTolerance: 0 },
  roleBinding: 'groups',
}));

const tokens: Record<string, string> = {};
beforeAll(async () => {
  for (const id of ['reader-rs', 'reader-es', 'auditor']) tokens[id] = await provider().token(id);
  tokens.otherAudience = await provider().token('auditor', { resource: OTHER });
  tokens.stranger = await stranger().token('auditor');
});

const each = (name: string, fn: (api: ReturnType<typeof apis>[number]) => Promise<void>) =>
  test.each(['express', 'oas-tools', 'svc'])(`%s: ${name}`, async (adapter) => fn(apis().find((api) => api.name === adapter)!));

each('RS256 and ES256 tokens are accepted; groups gives the role, the accountId claim owns the account', async (api) => {
  for (const id of ['reader-rs', 'reader-es']) {
    expect((await call(api.accountUrl('acc-1'), bearer(tokens[id]!))).status).toBe(200);
    expect((await call(api.accountUrl('acc-2'), bearer(tokens[id]!))).status).toBe(403);
    expect((await call(api.reportsUrl(), bearer(tokens[id]!))).status).toBe(403);
  }
  expect((await call(api.accountUrl('acc-2'), bearer(tokens.auditor!))).status).toBe(200);
  expect((await call(api.reportsUrl(), bearer(tokens.auditor!))).status).toBe(200);
});

each('without a token the anonymous role decides: 401', async (api) => {
  const answer = await call(api.reportsUrl());
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(/^Bearer/);
});

each('a token for another resource (aud) is refused', async (api) => {
  const answer = await call(api.reportsUrl(), bearer(tokens.otherAudience!));
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(/^Bearer error="invalid_token"/);
});

each("another provider's token is refused, though its signature verifies with the same keys", async (api) => {
  const answer = await call(api.reportsUrl(), bearer(tokens.stranger!));
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(/^Bearer error="invalid_token"/);
});

test('a token is accepted until it expires, then refused by every adapter (cached or not)', async () => {
  const short = await provider().token('short');
  for (const api of apis()) expect((await call(api.reportsUrl(), bearer(short))).status).toBe(200);
  await sleep(untilExpired(short));
  for (const api of apis()) {
    const answer = await call(api.reportsUrl(), bearer(short));
    expect([api.name, answer.status]).toEqual([api.name, 401]);
    expect(answer.challenge).toMatch(/^Bearer error="invalid_token"/);
  }
});
