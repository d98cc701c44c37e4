import { decodeJwt, importJWK, SignJWT, type JWTPayload } from 'jose';
import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { withProvider } from '../helpers/oidc-provider';
import { bearer, call, withApis } from './guarded-apis';

// profile: 'rfc9068' (JWT access tokens): the provider's tokens (typ at+jwt) pass; the same claims
// signed with the provider's own key but with another typ, or without a claim the profile
// requires, do not, though they pass without the profile.
const API = 'https://api.test';
const provider = withProvider({ resources: { [API]: { scope: 'accounts:read', alg: 'RS256' } }, clients: [{ id: 'auditor', claims: { groups: ['auditor'] } }] });
const jwt = (profile: Record<string, unknown>) => ({ issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['RS256'], audience: API, ...profile });
const strict = withApis(() => ({ jwt: jwt({ profile: 'rfc9068' }), roleBinding: 'groups' }));
const lenient = withApis(() => ({ jwt: jwt({}), roleBinding: 'groups', adapters: ['express'] }));

let real: string;
/** The claims of a real token, signed again with the provider's RSA key under another header. */
let resigned: (header: Record<string, unknown>, change?: (payload: JWTPayload) => JWTPayload) => Promise<string>;
beforeAll(async () => {
  real = await provider().token('auditor');
  const jwk = provider().keys.find((key) => key.alg === 'RS256')!;
  const key = await importJWK(jwk, 'RS256');
  resigned = (header, change = (payload) => payload) => new SignJWT(change(decodeJwt(real))).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, ...header }).sign(key);
});

test.each(['express', 'oas-tools', 'svc'])("%s: the provider's at+jwt tokens pass, a typ JWT token with the same claims and key does not", async (name) => {
  const api = strict().find((candidate) => candidate.name === name)!;
  expect((await call(api.reportsUrl(), bearer(real))).status).toBe(200);
  const answer = await call(api.reportsUrl(), bearer(await resigned({ typ: 'JWT' })));
  expect(answer.status).toBe(401);
  expect(answer.challenge).toMatch(/^Bearer error="invalid_token"/);
});

test('without the profile, the re-signed tokens pass: the profile is what refuses them', async () => {
  const [api] = lenient();
  for (const token of [await resigned({ typ: 'JWT' }), await resigned({}), await resigned({ typ: 'at+jwt' }, ({ client_id: _dropped, ...rest }) => rest)]) {
    expect((await call(api!.reportsUrl(), bearer(token))).status).toBe(200);
  }
});

test('the profile accepts application/at+jwt, and refuses a missing typ and a missing required claim', async () => {
  const api = strict().find((candidate) => candidate.name === 'express')!;
  expect((await call(api.reportsUrl(), bearer(await resigned({ typ: 'application/at+jwt' })))).status).toBe(200);
  expect((await call(api.reportsUrl(), bearer(await resigned({})))).status).toBe(401);
  for (const claim of ['client_id', 'jti', 'iat', 'sub']) {
    const token = await resigned({ typ: 'at+jwt' }, ({ [claim]: _dropped, ...rest }) => rest);
    expect([claim, (await call(api.reportsUrl(), bearer(token))).status]).toEqual([claim, 401]);
  }
});

test('the profile needs an audience', () => {
  expect(() => bearerJwt({ issuer: provider().issuer, jwks: provider().jwksUri, algorithms: ['RS256'], profile: 'rfc9068' })).toThrow(ConfigError);
});
