import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { bearerJwt, bearerJwtAcl, type DecisionLogEvent } from '../../src/auth';
import { listen } from '../helpers/listen';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, ISSUER, SECRET, token } from '../helpers/tokens';

// The 401s of both adapters say why (RFC 6750 error_description, and the same text in the JSON
// message) with nothing taken from the token, and each is a deny event in decisionLog.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const PERMISSIONS = join(EXAMPLE, 'permissions.yaml');
const PATH = '/api/v1/users/3';
/** RFC 6750 quoted-string characters, which an error_description is limited to. */
const SAFE = /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/;
const now = () => Math.floor(Date.now() / 1000);

const OTHER_SCHEME = 'the Authorization header holds credentials of another scheme, not Bearer <token>';

/** Refused credentials: the Authorization header, and the description and code the 401 must give. */
const REFUSALS: [string, () => Promise<string>, string, string][] = [
  ['an expired token', async () => `Bearer ${await token({ role: 'user', userId: 3, exp: now() - 60 })}`, 'the token has expired', 'ERR_JWT_EXPIRED'],
  ['a token signed with another secret', async () => `Bearer ${await token({ role: 'user', userId: 3 }, 'another-secret-that-is-32-bytes-long!!')}`, 'the signature does not verify', 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED'],
  ['a token from another issuer', async () => `Bearer ${await token({ role: 'user', userId: 3, iss: 'someone-else' })}`, "the token's issuer is not accepted", 'ERR_JWT_CLAIM_VALIDATION_FAILED'],
  [
    'a token in an algorithm not allowed',
    async () => `Bearer ${await new SignJWT({ iss: ISSUER, role: 'user', userId: 3 }).setProtectedHeader({ alg: 'HS384' }).sign(new TextEncoder().encode(SECRET))}`,
    "the token's algorithm is not accepted",
    'ERR_JOSE_ALG_NOT_ALLOWED',
  ],
  ['a malformed Bearer header', async () => 'Bearer two tokens', 'the Authorization header is not Bearer <token>', 'ERR_SVCGATE_BEARER_FORMAT'],
  ['a header over maxHeaderBytes', async () => `Bearer ${'a'.repeat(9000)}`, 'the Authorization header is longer than 8192 bytes', 'ERR_SVCGATE_BEARER_FORMAT'],
];

async function fetchWith(url: string, authorization?: string) {
  const response = await fetch(url, { headers: authorization === undefined ? {} : { authorization } });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> };
}

describe('Express + bearerJwtAcl', () => {
  let url: string;
  let close: () => Promise<void>;
  const events: DecisionLogEvent[] = [];
  const ran: string[] = [];
  beforeAll(async () => {
    const express = require('express') as () => { use: (...args: unknown[]) => void; all: (...args: unknown[]) => void };
    const app = express();
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: PERMISSIONS }, decisionLog: (event) => events.push(event) }));
    app.all(/.*/, (req: { originalUrl: string }, res: { json: (body: unknown) => void }) => {
      ran.push(req.originalUrl);
      res.json({ ok: true });
    });
    ({ url, close } = await listen(app as unknown as RequestListener));
  });
  afterAll(() => close());
  beforeEach(() => {
    events.length = 0;
    ran.length = 0;
  });

  test.each(REFUSALS)('%s: 401 whose challenge and message give the reason, logged as a 401 deny', async (_case, header, description, code) => {
    const authorization = await header();
    const answer = await fetchWith(`${url}${PATH}`, authorization);
    expect(answer).toEqual({ status: 401, challenge: `Bearer error="invalid_token", error_description="${description}"`, body: { error: 'Unauthorized', message: description, code } });
    expect(ran).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', input: { operation: 'GET /users/{userId}' }, result: expect.objectContaining({ allow: false, reasons: [description], role: null }), status: 401 })]);
    expect(JSON.stringify(events)).not.toContain(authorization.slice(7, 40));
  });

  test('the description never carries text of the token, whatever its claims hold', async () => {
    const hostile = 'x", error="none\r\nSet-Cookie: a=b';
    const answer = await fetchWith(`${url}${PATH}`, `Bearer ${await token({ iss: hostile, aud: hostile, role: 'user', userId: 3 })}`);
    expect(answer.status).toBe(401);
    const description = /^Bearer error="invalid_token", error_description="([^"]*)"$/.exec(answer.challenge ?? '')?.[1];
    expect(description).toMatch(SAFE);
    expect(description).not.toContain('none');
    expect(answer.body.message).toBe(description);
  });

  test('no credentials: the bare challenge; the anonymous deny is in the log as a decision', async () => {
    expect(await fetchWith(`${url}${PATH}`)).toEqual({ status: 401, challenge: 'Bearer', body: { error: 'Unauthorized', message: 'this operation needs a bearer token', code: 'ERR_SVCGATE_NO_CREDENTIALS' } });
    expect(events).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', input: expect.not.objectContaining({ role: expect.anything() }), result: expect.objectContaining({ allow: false }) })]);
  });

  test.each(['Basic dXNlcjpwYXNz', 'Digest username="a"', 'Negotiate'])('another scheme (%s) is no credentials: the bare challenge (RFC 6750 3.1), and the message says why', async (authorization) => {
    expect(await fetchWith(`${url}${PATH}`, authorization)).toEqual({ status: 401, challenge: 'Bearer', body: { error: 'Unauthorized', message: OTHER_SCHEME, code: 'ERR_SVCGATE_OTHER_SCHEME' } });
    expect(ran).toEqual([]);
    expect(events).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', input: expect.not.objectContaining({ role: expect.anything() }), result: expect.objectContaining({ allow: false }) })]);
  });
});

describe('@oas-tools/core + BearerJWT + jwtErrorHandler', () => {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost({ openapi: OPENAPI, jwt: HS256, position: 2, acl: { bearerAuth: PERMISSIONS }, customHandler: true });
  });
  afterAll(() => host.stop());

  test.each(REFUSALS)('%s: 401 whose challenge gives the reason, logged as a 401 deny by the error layer', async (_case, header, description, code) => {
    const before = await host.calls();
    const answer = await fetchWith(`${host.url}${PATH}`, await header());
    const after = await host.calls();
    expect(answer.status).toBe(401);
    expect(answer.challenge).toBe(`Bearer error="invalid_token", error_description="${description}"`);
    // BearerJWT answers the security step's 401s itself, with the body bearerJwtAcl answers with (the host's own
    // { error: 'SecurityError: ...' } and jwtErrorHandler's { error: 'JsonWebTokenError' } before).
    expect(answer.body).toEqual({ error: 'Unauthorized', message: description, code });
    expect(after.calls).toEqual(before.calls);
    expect(after.events.slice(before.events.length)).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', result: expect.objectContaining({ allow: false, reasons: [description] }), status: 401 })]);
  });

  test('a verification failure is answered with the description and the token failure code', async () => {
    const answer = await fetchWith(`${host.url}${PATH}`, `Bearer ${await token({ role: 'user', userId: 3, exp: now() - 60 })}`);
    expect(answer.body).toEqual({ error: 'Unauthorized', message: 'the token has expired', code: 'ERR_JWT_EXPIRED' });
  });

  test('another scheme: the host 401 gets the bare challenge, no error code (RFC 6750 3.1), and is logged with the reason', async () => {
    const before = await host.calls();
    const answer = await fetchWith(`${host.url}${PATH}`, 'Basic dXNlcjpwYXNz');
    const after = await host.calls();
    expect(answer).toMatchObject({ status: 401, challenge: 'Bearer' });
    expect(after.calls).toEqual(before.calls);
    expect(after.events.slice(before.events.length)).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', result: expect.objectContaining({ allow: false, reasons: [OTHER_SCHEME] }), status: 401 })]);
  });

  test('no credentials: the host 401 gets the bare challenge and is logged', async () => {
    const before = await host.calls();
    const answer = await fetchWith(`${host.url}${PATH}`);
    const after = await host.calls();
    expect(answer).toMatchObject({ status: 401, challenge: 'Bearer' });
    expect(after.events.slice(before.events.length)).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', result: expect.objectContaining({ allow: false, reasons: ['this operation needs a bearer token'] }), status: 401 })]);
  });
});
