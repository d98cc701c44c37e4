import { withProvider } from '../helpers/oidc-provider';
import { bearer, call, withApis } from './guarded-apis';

// oidc-provider signs with an Ed25519 key under the RFC 9864 name `Ed25519` (not `EdDSA`).
const API = 'https://api.test';
const provider = withProvider({
  resources: { [API]: { scope: 'accounts:read', alg: 'Ed25519' } },
  clients: [
    { id: 'reader', claims: { groups: ['reader'], accountId: 'acc-1' } },
    { id: 'rsa-auditor', alg: 'RS256', claims: { groups: ['auditor'] } },
  ],
});
const apis = withApis(() => ({ jwt: { issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['Ed25519'], audience: API, requiredClaims: ['exp'] }, roleBinding: 'groups' }));

let ed25519: string;
let rs256: string;
beforeAll(async () => {
  ed25519 = await provider().token('reader');
  rs256 = await provider().token('rsa-auditor');
});

test('the provider puts alg Ed25519 in the header', () => {
  expect(JSON.parse(Buffer.from(ed25519.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'Ed25519', typ: 'at+jwt' });
});

test.each(['express', 'oas-tools', 'svc'])("%s: algorithms ['Ed25519'] accepts the provider's Ed25519 tokens, and only those", async (name) => {
  const api = apis().find((candidate) => candidate.name === name)!;
  expect((await call(api.accountUrl('acc-1'), bearer(ed25519))).status).toBe(200);
  expect((await call(api.accountUrl('acc-2'), bearer(ed25519))).status).toBe(403);
  // A valid RS256 token of the same provider: its algorithm is not in the list.
  expect((await call(api.reportsUrl(), bearer(rs256))).status).toBe(401);
});
