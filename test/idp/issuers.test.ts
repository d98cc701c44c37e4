import { decodeJwt, importJWK, SignJWT } from 'jose';
import { withProvider, type IdentityProvider } from '../helpers/oidc-provider';
import { bearer, call, withApis } from './guarded-apis';

// Two tenants, each its own provider and keys: `issuers` lists both; the token's iss picks the
// one entry whose keys alone may verify it.
const API = 'https://api.test';
const settings = { resources: { [API]: { scope: 'accounts:read', alg: 'ES256' as const } }, clients: [{ id: 'auditor', claims: { groups: ['auditor'] } }] };
const first = withProvider(settings);
const second = withProvider(settings);
const third = withProvider(settings);

const apis = withApis(() => ({
  jwt: {
    issuers: [
      { issuer: first().issuer, jwks: first().jwksUri, algorithms: ['ES256'], audience: API },
      { issuerBaseURL: second().issuer, algorithms: ['ES256'], audience: API },
    ],
  },
  roleBinding: 'groups',
}));

/** A real token of `from`, its iss changed to `iss`, signed again with `from`'s key under that key's kid. */
async function reissued(from: IdentityProvider, iss: string): Promise<string> {
  const jwk = from.keys.find((key) => key.alg === 'ES256')!;
  return new SignJWT({ ...decodeJwt(await from.token('auditor')), iss }).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: jwk.kid }).sign(await importJWK(jwk, 'ES256'));
}

test.each(['express', 'oas-tools', 'svc'])('%s: tokens of both issuers pass, each only with its own keys; an unknown issuer is refused', async (name) => {
  const api = apis().find((candidate) => candidate.name === name)!;
  expect((await call(api.reportsUrl(), bearer(await first().token('auditor')))).status).toBe(200);
  expect((await call(api.reportsUrl(), bearer(await second().token('auditor')))).status).toBe(200);
  // The second tenant's key signing a token that claims the first issuer.
  expect((await call(api.reportsUrl(), bearer(await reissued(second(), first().issuer)))).status).toBe(401);
  expect((await call(api.reportsUrl(), bearer(await reissued(first(), second().issuer)))).status).toBe(401);
  const unknown = await call(api.reportsUrl(), bearer(await third().token('auditor')));
  expect(unknown.status).toBe(401);
  expect(unknown.challenge).toMatch(/^Bearer error="invalid_token"/);
});
