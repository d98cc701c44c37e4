import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump } from 'js-yaml';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { startOasHost, type OasHost, type OasSetup } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// @oas-tools/core 3.1.0 calls an http scheme's handler with the Authorization header only, and an
// oauth2 or openIdConnect scheme's handler with no request at all. The handler then leaves a
// pending verification that BearerJWT completes with the request: DPoP proofs, and tokens of
// oauth2 and openIdConnect schemes. Each host runs in its own process, spoken to over HTTP.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const PERMISSIONS = join(EXAMPLE, 'permissions.yaml');
const work = mkdtempSync(join(tmpdir(), 'svcgate-pending-'));
const ALL_ALGS = 'ES256 ES384 ES512 ES256K EdDSA Ed25519 PS256 PS384 PS512 RS256 RS384 RS512';

interface Client {
  privateKey: KeyLike;
  jwk: JWK;
  jkt: string;
}

async function dpopClient(): Promise<Client> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return { privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

function proof(client: Client, accessToken: string, htu: string, htm = 'GET'): Promise<string> {
  const ath = createHash('sha256').update(accessToken).digest('base64url');
  return new SignJWT({ htm, htu, iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ath }).setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: client.jwk }).sign(client.privateKey);
}

async function call(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) };
}

function withHost(setup: OasSetup): () => OasHost {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost(setup);
  });
  afterAll(() => host.stop());
  return () => host;
}

/** The example's user operation, under a security scheme of another type. */
function documentWith(scheme: Record<string, unknown>, name: string): string {
  const file = join(work, `${name}.yaml`);
  const document = {
    openapi: '3.0.3',
    info: { title: name, version: '1' },
    servers: [{ url: '/api/v1' }],
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: scheme } },
    paths: {
      '/users/{userId}': {
        'x-router-controller': 'usersController',
        parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }],
        get: { operationId: 'getUser', responses: { '200': { description: 'a user' } } },
      },
    },
  };
  writeFileSync(file, dump(document));
  return file;
}

const ACL = { bearerAuth: { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*', '!password'] } } } };

describe('DPoP on an http bearer scheme: BearerJWT completes the proof check', () => {
  const host = withHost({ openapi: OPENAPI, jwt: { ...HS256, dpop: true }, position: 2, acl: { bearerAuth: PERMISSIONS }, customHandler: true });
  let client: Client;
  let bound: string;
  const url = () => `${host().url}/api/v1/users/3`;
  beforeAll(async () => {
    client = await dpopClient();
    bound = await token({ sub: 'u3', role: 'user', userId: 3, cnf: { jkt: client.jkt } });
  });

  test('a valid proof: the controller runs and sees the verified payload in res.locals.oas.security', async () => {
    const answer = await call(url(), { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url()) });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ operationId: 'getUser', role: 'user', received: { security: { bearerAuth: { sub: 'u3', cnf: { jkt: client.jkt } } } } });
  });

  test.each<[string, () => Promise<Record<string, string>>, string]>([
    ['wrong htm', async () => ({ dpop: await proof(client, bound, url(), 'DELETE') }), "the DPoP proof's htm is not the request method"],
    ['other path', async () => ({ dpop: await proof(client, bound, url().replace('/users/3', '/users/5')) }), "the DPoP proof's htu is not the request URL"],
    ['no proof', async () => ({}), 'the request has no DPoP proof'],
  ])('%s: 401 invalid_dpop_proof, the controller does not run, the 401 is logged', async (_defect, headers, description) => {
    const before = await host().calls();
    const answer = await call(url(), { authorization: `DPoP ${bound}`, ...(await headers()) });
    const after = await host().calls();
    expect(answer).toEqual({
      status: 401,
      challenge: `Bearer, DPoP error="invalid_dpop_proof", error_description="${description}", algs="${ALL_ALGS}"`,
      body: { error: 'Unauthorized', message: description, code: 'ERR_SVCGATE_DPOP_PROOF' },
    });
    expect(after.calls).toEqual(before.calls);
    expect(after.events.slice(before.events.length)).toEqual([expect.objectContaining({ operation: 'GET /users/{userId}', result: expect.objectContaining({ allow: false, reasons: [description] }), status: 401 })]);
  });

  test('a replayed proof is refused', async () => {
    const once = await proof(client, bound, url());
    expect((await call(url(), { authorization: `DPoP ${bound}`, dpop: once })).status).toBe(200);
    expect(await call(url(), { authorization: `DPoP ${bound}`, dpop: once })).toMatchObject({ status: 401, body: { message: 'the DPoP proof was used before' } });
  });

  test('a DPoP-bound token as Bearer is refused in the security step', async () => {
    const answer = await call(url(), { authorization: `Bearer ${bound}` });
    const description = 'the token is bound to a DPoP key: send it with the DPoP scheme';
    expect(answer).toEqual({
      status: 401,
      challenge: `Bearer error="invalid_token", error_description="${description}", DPoP algs="${ALL_ALGS}"`,
      body: { error: 'Unauthorized', message: description, code: 'ERR_SVCGATE_DPOP_BINDING' },
    });
  });
});

describe('without BearerJWT nothing completes a pending verification, so the handler refuses', () => {
  const host = withHost({ openapi: OPENAPI, jwt: { ...HS256, dpop: true }, position: null, customHandler: true });

  test('a DPoP request is a 401 and the controller does not run; a Bearer token still works', async () => {
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${host().url}/api/v1/users/3`;
    const dpop = await call(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url) });
    const bearer = await call(url, { authorization: `Bearer ${await token({ role: 'user', userId: 3 })}` });
    expect(dpop.status).toBe(401);
    expect(bearer.status).toBe(200);
    expect((await host().calls()).calls).toEqual(['getUser']);
  });
});

describe.each([
  ['oauth2', { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'http://127.0.0.1:9/token', scopes: {} } } }],
  ['openIdConnect', { type: 'openIdConnect', openIdConnectUrl: 'http://127.0.0.1:9/.well-known/openid-configuration' }],
])('an %s scheme: the handler gets no request, BearerJWT reads and verifies the token', (type, scheme) => {
  const host = withHost({ openapi: documentWith(scheme, type), jwt: { ...HS256, dpop: true }, position: 2, acl: ACL, customHandler: true });
  const url = () => `${host().url}/api/v1/users/3`;

  test('a valid token: decided on its claims, and the controller sees the payload', async () => {
    const answer = await call(url(), { authorization: `Bearer ${await token({ sub: 'u3', role: 'user', userId: 3 })}` });
    expect(answer).toMatchObject({ status: 200, body: { role: 'user', received: { security: { bearerAuth: { sub: 'u3' } } } } });
    expect((await call(`${host().url}/api/v1/users/4`, { authorization: `Bearer ${await token({ role: 'user', userId: 3 })}` })).status).toBe(403);
  });

  test('an invalid token: 401 invalid_token with its description', async () => {
    const expired = await token({ role: 'user', userId: 3, exp: Math.floor(Date.now() / 1000) - 60 });
    const answer = await call(url(), { authorization: `Bearer ${expired}` });
    expect(answer.status).toBe(401);
    expect(answer.challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", DPoP algs="/);
    expect((answer.body as { message: string }).message).toBe(/error_description="([^"]+)"/.exec(answer.challenge!)![1]);
  });

  test('no token: decided as anonymous, and the deny is a 401 offering both schemes', async () => {
    expect(await call(url())).toMatchObject({ status: 401, challenge: `Bearer, DPoP algs="${ALL_ALGS}"` });
  });

  test('a DPoP token with its proof', async () => {
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const answers = [await call(url(), { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url()) }), await call(url(), { authorization: `DPoP ${bound}` })];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401]);
  });
});

describe('an oauth2 scheme without BearerJWT', () => {
  const host = withHost({ openapi: documentWith({ type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'http://127.0.0.1:9/token', scopes: {} } } }, 'oauth2-alone'), jwt: HS256, position: null, customHandler: true });

  test('is refused: nothing would read the token', async () => {
    const answer = await call(`${host().url}/api/v1/users/3`, { authorization: `Bearer ${await token({ role: 'user', userId: 3 })}` });
    expect(answer.status).toBe(401);
    expect((await host().calls()).calls).toEqual([]);
  });
});
