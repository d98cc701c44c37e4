import type { KeyObject } from 'node:crypto';
import type { RequestListener } from 'node:http';
import express from 'express';
import { errors, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { bearerJwt, JsonWebTokenError, SecurityError, type BearerJwtConfig } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { hmacToken } from '../helpers/jwt-pitfalls';
import { listen } from '../helpers/listen';
import { ISSUER, SECRET } from '../helpers/tokens';

// The description a refused request is told: a fixed sentence per failure, only characters an
// RFC 6750 quoted error_description allows, and never text taken from the token.
const ALLOWED = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;
/** Put in every token below, where jose's messages or a careless description would quote it. */
const MARKER = 'M4RK"\\\u00e9\r\n';
const now = () => Math.floor(Date.now() / 1000);

function expectSafe(description: unknown, token?: string): void {
  expect(typeof description).toBe('string');
  expect(description).toMatch(ALLOWED);
  expect(description).not.toContain('M4RK');
  if (token !== undefined) for (const part of token.split('.')) if (part.length > 0) expect(description).not.toContain(part);
}

test.each(Object.values(errors).map((type) => [type.code]))('a JsonWebTokenError of jose code %s has a safe description', (code) => {
  const error = new JsonWebTokenError(code, `jose said: "${MARKER}"`);
  expectSafe(error.description);
  expect(error.description).not.toContain('jose said');
});

test('a SecurityError has a safe description by default', () => {
  expectSafe(new SecurityError(`odd header ${MARKER}`).description);
});

describe('every refusal of a real token, with the marker in its claims and header', () => {
  const claims = (extra: Record<string, unknown> = {}) => ({ iss: ISSUER, exp: now() + 600, aud: 'api', sub: MARKER, jti: MARKER, ...extra });
  const hs = (payload: unknown, header: Record<string, unknown> = {}) => hmacToken({ alg: 'HS256', kid: MARKER, ...header }, payload);
  const base: BearerJwtConfig = { issuer: ISSUER, secret: SECRET, audience: 'api' };

  test.each<[string, () => string | Promise<string>, BearerJwtConfig, string, string]>([
    ['expired', () => hs(claims({ exp: now() - 600 })), base, 'ERR_JWT_EXPIRED', 'the token has expired'],
    ['not valid yet', () => hs(claims({ nbf: now() + 600 })), base, 'ERR_JWT_CLAIM_VALIDATION_FAILED', 'the token is not valid yet'],
    ['another issuer', () => hs(claims({ iss: MARKER })), base, 'ERR_JWT_CLAIM_VALIDATION_FAILED', "the token's issuer is not accepted"],
    ['another audience', () => hs(claims({ aud: [MARKER] })), base, 'ERR_JWT_CLAIM_VALIDATION_FAILED', "the token's audience is not accepted"],
    ['exp not a number', () => hs(claims({ exp: MARKER })), base, 'ERR_JWT_CLAIM_VALIDATION_FAILED', "the token's exp claim is invalid"],
    ['iat not a number', () => hs(claims({ iat: MARKER })), base, 'ERR_JWT_CLAIM_VALIDATION_FAILED', "the token's iat claim is invalid"],
    ['older than maxTokenAge', () => hs(claims({ iat: now() - 3600 })), { ...base, maxTokenAge: 60 }, 'ERR_JWT_EXPIRED', 'the token is older than the accepted age (maxTokenAge)'],
    ['issued in the future', () => hs(claims({ iat: now() + 3600 })), { ...base, maxTokenAge: 60 }, 'ERR_JWT_CLAIM_VALIDATION_FAILED', "the token's issue time is in the future"],
    ['no exp, which is required by default', () => hs(claims({ exp: undefined })), base, 'ERR_JWT_CLAIM_VALIDATION_FAILED', 'the token has no exp claim, which is required by default (to accept tokens without exp, configure requiredClaims without exp)'],
    ['a missing registered claim', () => hs(claims()), { ...base, requiredClaims: ['client_id'] }, 'ERR_JWT_CLAIM_VALIDATION_FAILED', 'the token has no client_id claim'],
    ['a missing claim of any name', () => hs(claims()), { ...base, requiredClaims: ['x"y'] }, 'ERR_JWT_CLAIM_VALIDATION_FAILED', 'the token lacks a required claim'],
    ['typ not at+jwt', () => hs(claims({ client_id: 'c', iat: now() }), { typ: MARKER }), { ...base, profile: 'rfc9068' }, 'ERR_JWT_CLAIM_VALIDATION_FAILED', 'the token is not a JWT access token (typ at+jwt)'],
    ['a wrong signature', () => hmacToken({ alg: 'HS256', kid: MARKER }, claims(), 'another-secret-that-is-32-bytes-long'), base, 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', 'the signature does not verify'],
    ['an algorithm not allowed', () => hs(claims(), { alg: 'HS512' }), base, 'ERR_JOSE_ALG_NOT_ALLOWED', "the token's algorithm is not accepted"],
    ['an unknown critical header', () => hs(claims(), { crit: [MARKER], [MARKER]: 1 }), base, 'ERR_JOSE_NOT_SUPPORTED', 'the token uses an algorithm or header this server does not support'],
    ['a payload that is not an object', () => hs([MARKER]), base, 'ERR_JWT_INVALID', 'the token is not a well-formed JWT'],
    ['a header that is not JSON', () => `${Buffer.from(MARKER).toString('base64url')}.e30.c2ln`, base, 'ERR_JWS_INVALID', 'the token is not a well-formed JWT'],
  ])('%s', async (_name, make, config, code, description) => {
    const token = await make();
    const error = await bearerJwt(config)(`Bearer ${token}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonWebTokenError);
    expect(error).toMatchObject({ code, description });
    expectSafe((error as JsonWebTokenError).description, token);
  });

  test('no key of a JWK set matches', async () => {
    const set = await generateKeyPair('ES256');
    const other = await generateKeyPair('ES256');
    const verify = bearerJwt({ issuer: ISSUER, audience: 'api', algorithms: ['ES256'], jwks: { keys: [{ ...(await exportJWK(set.publicKey)), kid: 'k1' }] } });
    const token = await new SignJWT(claims()).setProtectedHeader({ alg: 'ES256', kid: MARKER }).sign(other.privateKey as KeyObject);
    const error = await verify(`Bearer ${token}`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY', description: 'no key of the key set matches the token' });
    expectSafe((error as JsonWebTokenError).description, token);
  });

  test('the key set cannot be fetched', async () => {
    const { url, close } = await listen(express() as unknown as RequestListener);
    await close();
    const verify = bearerJwt({ issuer: ISSUER, audience: 'api', algorithms: ['ES256'], jwks: `${url}/jwks.json`, strict: true });
    await expect(verify.ready()).rejects.toBeInstanceOf(ConfigError);
    const token = hmacToken({ alg: 'ES256', kid: MARKER }, claims());
    const error = await verify(`Bearer ${token}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonWebTokenError);
    expect(error).toMatchObject({ description: 'the key set cannot be fetched' });
    expectSafe((error as JsonWebTokenError).description, token);
  });

  test("the reason keeps jose's message for logs", async () => {
    const error = await bearerJwt(base)(`Bearer ${hs(claims({ exp: now() - 600 }))}`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: '"exp" claim timestamp check failed' });
  });
});
