import { decodeJwt } from 'jose';
import { dpopKey, dpopProof, withProvider, type DpopKey } from '../helpers/oidc-provider';
import { bearer, call, withApis, type GuardedApi } from './guarded-apis';

// DPoP-bound access tokens (RFC 9449) from the provider: the token request carried a proof, so the
// token holds cnf.jkt, the thumbprint of the client's key. Presented as Bearer it is refused;
// presented with the DPoP scheme and a fresh proof of that key, accepted (option dpop).
const API = 'https://api.test';
const provider = withProvider({ resources: { [API]: { scope: 'accounts:read', alg: 'ES256' } }, clients: [{ id: 'auditor', claims: { groups: ['auditor'] } }] });
const jwt = (dpop: Record<string, unknown>) => ({ issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['ES256'], audience: API, ...dpop });
const withDpop = withApis(() => ({ jwt: jwt({ dpop: true }), roleBinding: 'groups' }));
const withoutDpop = withApis(() => ({ jwt: jwt({}), roleBinding: 'groups', adapters: ['express'] }));

let key: DpopKey;
let bound: string;
let unbound: string;
beforeAll(async () => {
  key = await dpopKey();
  bound = await provider().token('auditor', { dpop: key });
  unbound = await provider().token('auditor');
});

/** The request URL without query, as a proof's htu names it. */
const htuOf = (url: string) => `${new URL(url).origin}${new URL(url).pathname}`;
const dpopHeaders = async (url: string, token: string, signer: DpopKey = key) => ({
  authorization: `DPoP ${token}`,
  dpop: await dpopProof(signer, { htm: 'GET', htu: htuOf(url), accessToken: token }),
});
const adapter = (name: string): GuardedApi => withDpop().find((api) => api.name === name)!;
const ADAPTERS = ['express', 'oas-tools', 'svc'];

test("the provider's token is bound to the client's key", () => {
  expect(decodeJwt(bound).cnf).toEqual({ jkt: key.jkt });
});

test('a bound token presented as Bearer is refused, with or without the dpop option', async () => {
  for (const api of [...withDpop(), ...withoutDpop()]) {
    const answer = await call(api.reportsUrl(), bearer(bound));
    expect([api.name, answer.status]).toEqual([api.name, 401]);
    // The same token, unbound, passes: the binding is what refuses it.
    expect([api.name, (await call(api.reportsUrl(), bearer(unbound))).status]).toEqual([api.name, 200]);
  }
});

test.each(ADAPTERS)('%s: the DPoP scheme with a proof of the bound key is accepted', async (name) => {
  const api = adapter(name);
  for (const url of [api.reportsUrl(), api.accountUrl('acc-4')]) {
    expect((await call(url, await dpopHeaders(url, bound))).status).toBe(200);
  }
});

test.each(ADAPTERS)('%s: a replayed proof is refused', async (name) => {
  const url = adapter(name).reportsUrl();
  const headers = await dpopHeaders(url, bound);
  expect((await call(url, headers)).status).toBe(200);
  expect((await call(url, headers)).status).toBe(401);
});

test.each(ADAPTERS)('%s: a proof of another key, or for another URL, is refused', async (name) => {
  const api = adapter(name);
  expect((await call(api.reportsUrl(), await dpopHeaders(api.reportsUrl(), bound, await dpopKey()))).status).toBe(401);
  const forReports = await dpopHeaders(api.reportsUrl(), bound);
  expect((await call(api.accountUrl('acc-4'), forReports)).status).toBe(401);
});
