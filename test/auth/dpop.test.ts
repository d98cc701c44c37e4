import { createHash, randomUUID } from 'node:crypto';
import { request as httpRequest, type OutgoingHttpHeaders, type RequestListener } from 'node:http';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { bearerJwt, bearerJwtAcl, type BearerJwtConfig, type DecisionLogEvent } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { HS256, SECRET, token } from '../helpers/tokens';

// RFC 9449 DPoP through bearerJwtAcl, over real HTTP on 127.0.0.1: real client key pairs, real
// proofs signed with jose, and the proof checks of section 4.3 one defect at a time.
const EXAMPLE = join(__dirname, '../../examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const ACL = { bearerAuth: join(EXAMPLE, 'permissions.yaml') };
const ALL_ALGS = 'ES256 ES384 ES512 ES256K EdDSA Ed25519 PS256 PS384 PS512 RS256 RS384 RS512';
type ExpressFactory = () => { use: (...args: unknown[]) => void; all: (...args: unknown[]) => void };

interface Client {
  alg: string;
  privateKey: KeyLike;
  jwk: JWK;
  jkt: string;
}

async function dpopClient(alg = 'ES256'): Promise<Client> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk, 'sha256') };
}

const hash = (text: string) => createHash('sha256').update(text).digest('base64url');

interface ProofParts {
  htm?: string;
  htu?: string;
  iat?: number;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  signer?: KeyLike | Uint8Array;
}

/** A proof for `accessToken`, correct unless `parts` changes something. */
function proof(client: Client, accessToken: string, url: string, parts: ProofParts = {}): Promise<string> {
  const claims = { htm: parts.htm ?? 'GET', htu: parts.htu ?? url, iat: parts.iat ?? Math.floor(Date.now() / 1000), jti: randomUUID(), ath: hash(accessToken), ...parts.claims };
  return new SignJWT(claims)
    .setProtectedHeader({ typ: 'dpop+jwt', alg: client.alg, jwk: client.jwk, ...parts.header } as { alg: string })
    .sign(parts.signer ?? client.privateKey);
}

interface Answer {
  status: number;
  challenge: string | undefined;
  body: Record<string, unknown>;
}

/** node:http rather than fetch: a header can be sent twice, and Host can be anything. */
function send(url: string, headers: OutgoingHttpHeaders, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const challenge = response.headers['www-authenticate'];
        resolve({ status: response.statusCode ?? 0, challenge: Array.isArray(challenge) ? challenge.join(', ') : challenge, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
      });
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** An app guarded by bearerJwtAcl on the example API; each route records that it ran and echoes the payload. */
async function start(jwt: BearerJwtConfig, express: ExpressFactory = require('express') as ExpressFactory) {
  const ran: string[] = [];
  const events: DecisionLogEvent[] = [];
  const app = express();
  app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(jwt), acl: ACL, decisionLog: (event) => events.push(event) }));
  app.all(/.*/, (req: { method: string; originalUrl: string; auth?: { payload?: Record<string, unknown> } }, res: { json: (body: unknown) => void }) => {
    ran.push(`${req.method} ${req.originalUrl}`);
    res.json({ payload: req.auth?.payload ?? null });
  });
  const server = await listen(app as unknown as RequestListener);
  return { ...server, ran, events };
}

const refusedProof = (description: string) => `Bearer, DPoP error="invalid_dpop_proof", error_description="${description}", algs="${ALL_ALGS}"`;

describe('DPoP with bearerJwtAcl (dpop: true)', () => {
  let app: Awaited<ReturnType<typeof start>>;
  let client: Client;
  let bound: string;
  let userUrl: string;
  beforeAll(async () => {
    app = await start({ ...HS256, dpop: true });
    client = await dpopClient();
    bound = await token({ sub: 'u3', role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    userUrl = `${app.url}/api/v1/users/3`;
  });
  afterAll(() => app.close());
  beforeEach(() => {
    app.ran.length = 0;
    app.events.length = 0;
  });

  test('a bound token with a valid proof reaches the route with its payload', async () => {
    const answer = await send(userUrl, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, userUrl) });
    expect(answer.status).toBe(200);
    expect(answer.body.payload).toMatchObject({ sub: 'u3', cnf: { jkt: client.jkt } });
    expect(app.ran).toEqual(['GET /api/v1/users/3']);
  });

  test.each(['ES384', 'ES512', 'ES256K', 'EdDSA', 'Ed25519', 'PS256', 'RS256'])('a proof signed with %s is accepted', async (alg) => {
    const other = await dpopClient(alg);
    const otherToken = await token({ role: 'user', userId: 3, cnf: { jkt: other.jkt } });
    const answer = await send(userUrl, { authorization: `DPoP ${otherToken}`, dpop: await proof(other, otherToken, userUrl) });
    expect(answer.status).toBe(200);
  });

  test('htu is compared after normalization, without query and fragment', async () => {
    const port = new URL(app.url).port;
    for (const htu of [`HTTP://127.0.0.1:${port}/api/v1/users/3`, `http://127.0.0.1:${port}/api/v1/%75sers/3`, `${userUrl}?page=2#top`]) {
      const answer = await send(userUrl, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, userUrl, { htu }) });
      expect([htu, answer.status]).toEqual([htu, 200]);
    }
    const withQuery = await send(`${userUrl}?x=1`, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, userUrl) });
    expect(withQuery.status).toBe(200);
  });

  test.each<[string, (url: string) => Promise<OutgoingHttpHeaders>, string]>([
    ['wrong htm', async (url) => ({ dpop: await proof(client, bound, url, { htm: 'POST' }) }), "the DPoP proof's htm is not the request method"],
    ['htm in another case', async (url) => ({ dpop: await proof(client, bound, url, { htm: 'get' }) }), "the DPoP proof's htm is not the request method"],
    ['another host in htu', async (url) => ({ dpop: await proof(client, bound, url, { htu: url.replace('127.0.0.1', 'localhost') }) }), "the DPoP proof's htu is not the request URL"],
    ['https in htu', async (url) => ({ dpop: await proof(client, bound, url, { htu: url.replace('http:', 'https:') }) }), "the DPoP proof's htu is not the request URL"],
    ['another path in htu', async (url) => ({ dpop: await proof(client, bound, url, { htu: url.replace('/users/3', '/users/4') }) }), "the DPoP proof's htu is not the request URL"],
    ['an old iat', async (url) => ({ dpop: await proof(client, bound, url, { iat: Math.floor(Date.now() / 1000) - 120 }) }), "the DPoP proof's iat is too old or in the future"],
    ['an iat in the future', async (url) => ({ dpop: await proof(client, bound, url, { iat: Math.floor(Date.now() / 1000) + 60 }) }), "the DPoP proof's iat is too old or in the future"],
    ['the ath of another token', async (url) => ({ dpop: await proof(client, bound, url, { claims: { ath: hash(`${bound}x`) } }) }), "the DPoP proof's ath is not the hash of the access token"],
    ['no ath', async (url) => ({ dpop: await proof(client, bound, url, { claims: { ath: undefined } }) }), "the DPoP proof's ath is not the hash of the access token"],
    ['no jti', async (url) => ({ dpop: await proof(client, bound, url, { claims: { jti: undefined } }) }), 'the DPoP proof has no valid jti'],
    ['a key the token is not bound to', async (url) => ({ dpop: await proof(await dpopClient(), bound, url) }), 'the DPoP proof is not signed with the key the token is bound to'],
    ['a signature by another key under the bound jwk', async (url) => ({ dpop: await proof(client, bound, url, { signer: (await dpopClient()).privateKey }) }), "the DPoP proof's signature does not verify"],
    [
      'a private key in the jwk',
      async (url) => ({ dpop: await proof(client, bound, url, { header: { jwk: { ...client.jwk, d: (await exportJWK(client.privateKey)).d } } }) }),
      "the DPoP proof's jwk holds a private key",
    ],
    [
      'an HS256 proof',
      async (url) => ({ dpop: await proof(client, bound, url, { header: { alg: 'HS256', jwk: { kty: 'oct', k: Buffer.from(SECRET).toString('base64url') } }, signer: new TextEncoder().encode(SECRET) }) }),
      "the DPoP proof's algorithm is not accepted",
    ],
    ['typ JWT', async (url) => ({ dpop: await proof(client, bound, url, { header: { typ: 'JWT' } }) }), "the DPoP proof's typ is not dpop+jwt"],
    ['no jwk', async (url) => ({ dpop: await proof(client, bound, url, { header: { jwk: undefined } }) }), 'the DPoP proof has no jwk'],
    ['no proof', async () => ({}), 'the request has no DPoP proof'],
    ['two DPoP headers', async (url) => ({ dpop: [await proof(client, bound, url), await proof(client, bound, url)] }), 'the request has more than one DPoP proof'],
    ['a proof over 8192 bytes', async (url) => ({ dpop: await proof(client, bound, url, { claims: { pad: 'x'.repeat(9000) } }) }), 'the DPoP proof is longer than 8192 bytes'],
    ['a proof that is no JWT', async () => ({ dpop: 'not-a-jwt' }), 'the DPoP proof is not a JWT'],
  ])('%s: 401 invalid_dpop_proof, and the route does not run', async (_defect, headers, description) => {
    const answer = await send(userUrl, { authorization: `DPoP ${bound}`, ...(await headers(userUrl)) });
    expect(answer).toEqual({ status: 401, challenge: refusedProof(description), body: { error: 'Unauthorized', message: description, code: 'ERR_SVCGATE_DPOP_PROOF' } });
    expect(app.ran).toEqual([]);
  });

  test('a replayed proof is refused', async () => {
    const once = await proof(client, bound, userUrl);
    expect((await send(userUrl, { authorization: `DPoP ${bound}`, dpop: once })).status).toBe(200);
    const again = await send(userUrl, { authorization: `DPoP ${bound}`, dpop: once });
    expect(again).toMatchObject({ status: 401, challenge: refusedProof('the DPoP proof was used before') });
    expect(app.ran).toEqual(['GET /api/v1/users/3']);
  });

  test('a proof refused for its token is not remembered: the same proof passes with the right token', async () => {
    const expired = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt }, exp: Math.floor(Date.now() / 1000) - 60 });
    const once = await proof(client, bound, userUrl);
    expect((await send(userUrl, { authorization: `DPoP ${expired}`, dpop: once })).status).toBe(401);
    expect((await send(userUrl, { authorization: `DPoP ${bound}`, dpop: once })).status).toBe(200);
  });

  test('a DPoP token without cnf.jkt is refused: 401 invalid_token on the DPoP challenge', async () => {
    const unbound = await token({ role: 'user', userId: 3 });
    const answer = await send(userUrl, { authorization: `DPoP ${unbound}`, dpop: await proof(client, unbound, userUrl) });
    expect(answer).toEqual({
      status: 401,
      challenge: `Bearer, DPoP error="invalid_token", error_description="the token is not bound to a DPoP key", algs="${ALL_ALGS}"`,
      body: { error: 'Unauthorized', message: 'the token is not bound to a DPoP key', code: 'ERR_SVCGATE_DPOP_BINDING' },
    });
  });

  test('a DPoP-bound token sent as Bearer is refused, even with a valid proof, and again once its verification is cached', async () => {
    const description = 'the token is bound to a DPoP key: send it with the DPoP scheme';
    // The second time the token cache answers at once (see verifyForRequest), and the refusal must hold there too.
    for (let i = 0; i < 2; i++) {
      const answer = await send(userUrl, { authorization: `Bearer ${bound}`, dpop: await proof(client, bound, userUrl) });
      expect(answer).toEqual({ status: 401, challenge: `Bearer error="invalid_token", error_description="${description}", DPoP algs="${ALL_ALGS}"`, body: { error: 'Unauthorized', message: description, code: 'ERR_SVCGATE_DPOP_BINDING' } });
    }
    expect(app.ran).toEqual([]);
  });

  test('an unbound Bearer token is still accepted, and a request without credentials is offered both schemes', async () => {
    expect((await send(userUrl, { authorization: `Bearer ${await token({ role: 'user', userId: 3 })}` })).status).toBe(200);
    expect(await send(userUrl, {})).toMatchObject({ status: 401, challenge: `Bearer, DPoP algs="${ALL_ALGS}"` });
  });

  test('a refused proof is a 401 deny in decisionLog, with neither the token nor the proof', async () => {
    const sent = await proof(client, bound, userUrl, { htm: 'DELETE' });
    await send(userUrl, { authorization: `DPoP ${bound}`, dpop: sent });
    expect(app.events).toHaveLength(1);
    expect(app.events[0]).toMatchObject({ operation: 'GET /users/{userId}', result: { allow: false, reasons: ["the DPoP proof's htm is not the request method"], role: null }, status: 401 });
    expect(JSON.stringify(app.events)).not.toContain(bound.split('.')[1]);
    expect(JSON.stringify(app.events)).not.toContain(sent.split('.')[1]);
  });
});

describe('DPoP options', () => {
  test('without dpop, a bound token as Bearer is refused too, and the DPoP scheme is not read', async () => {
    const app = await start(HS256);
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const asBearer = await send(url, { authorization: `Bearer ${bound}` });
    const asDpop = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url) });
    const noCredentials = await send(url, {});
    await app.close();
    expect(asBearer).toMatchObject({ status: 401, challenge: 'Bearer error="invalid_token", error_description="the token is bound to a DPoP key: send it with the DPoP scheme"' });
    // Without dpop the DPoP scheme is another scheme: the bare challenge, as without credentials.
    expect(asDpop).toMatchObject({ status: 401, challenge: 'Bearer', body: { error: 'Unauthorized', message: 'the Authorization header holds credentials of another scheme, not Bearer <token>' } });
    expect(noCredentials.challenge).toBe('Bearer');
    expect(app.ran).toEqual([]);
  });

  test('required: Bearer tokens are refused and only DPoP is offered', async () => {
    const app = await start({ ...HS256, dpop: { required: true, algorithms: ['ES256'] } });
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const bearer = await send(url, { authorization: `Bearer ${await token({ role: 'user', userId: 3 })}` });
    const dpop = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url) });
    const none = await send(url, {});
    await app.close();
    expect(bearer).toMatchObject({ status: 401, challenge: 'DPoP error="invalid_token", error_description="this API accepts only DPoP-bound tokens, sent with the DPoP scheme", algs="ES256"' });
    expect(dpop.status).toBe(200);
    expect(none.challenge).toBe('DPoP algs="ES256"');
  });

  test('algorithms: a proof in another algorithm is refused', async () => {
    const app = await start({ ...HS256, dpop: { algorithms: ['EdDSA'] } });
    const client = await dpopClient('ES256');
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const answer = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url) });
    await app.close();
    expect(answer).toMatchObject({ status: 401, challenge: `Bearer, DPoP error="invalid_dpop_proof", error_description="the DPoP proof's algorithm is not accepted", algs="EdDSA"` });
  });

  test('origins: htu must name a configured origin; the Host header is not read', async () => {
    const app = await start({ ...HS256, dpop: { origins: ['https://API.example.com:443/'] } });
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const send3 = async (htu: string, host?: string) =>
      (await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url, { htu }), ...(host === undefined ? {} : { host }) })).status;
    const statuses = [await send3('https://api.example.com/api/v1/users/3'), await send3(url), await send3('http://evil.example/api/v1/users/3', 'evil.example'), await send3('https://api.example.com/api/v1/users/4')];
    await app.close();
    expect(statuses).toEqual([200, 401, 401, 401]);
  });

  test('without origins, the origin is the Host header with the connection protocol (documented: set origins behind a proxy)', async () => {
    const app = await start({ ...HS256, dpop: true });
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const viaHost = await send(url, { authorization: `DPoP ${bound}`, host: 'api.example.com', dpop: await proof(client, bound, url, { htu: 'http://api.example.com/api/v1/users/3' }) });
    const viaHttps = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url, { htu: url.replace('http:', 'https:') }) });
    await app.close();
    expect([viaHost.status, viaHttps.status]).toEqual([200, 401]);
  });

  test('jtiCacheSize: a full replay cache refuses new proofs (it never forgets a live one) and warns once', async () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const app = await start({ ...HS256, dpop: { jtiCacheSize: 2 } });
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const first = await proof(client, bound, url);
    const statuses: number[] = [];
    for (const sent of [first, await proof(client, bound, url), await proof(client, bound, url), await proof(client, bound, url), first]) {
      statuses.push((await send(url, { authorization: `DPoP ${bound}`, dpop: sent })).status);
    }
    const full = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url) });
    await app.close();
    const warnings = warning.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === 'SVCGATE_DPOP_REPLAY_CACHE_FULL');
    warning.mockRestore();
    expect(statuses).toEqual([200, 200, 401, 401, 401]);
    expect(full.body).toEqual({ error: 'Unauthorized', message: 'too many DPoP proofs are in use: retry later', code: 'ERR_SVCGATE_DPOP_PROOF' });
    expect(warnings).toHaveLength(1);
  });

  test('Express 4: a valid proof passes and a wrong one is refused', async () => {
    const app = await start({ ...HS256, dpop: true }, require('express4') as ExpressFactory);
    const client = await dpopClient();
    const bound = await token({ role: 'user', userId: 3, cnf: { jkt: client.jkt } });
    const url = `${app.url}/api/v1/users/3`;
    const valid = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url) });
    const wrong = await send(url, { authorization: `DPoP ${bound}`, dpop: await proof(client, bound, url, { htm: 'PUT' }) });
    await app.close();
    expect([valid.status, wrong.status]).toEqual([200, 401]);
  });

  test.each<[string, unknown, string]>([
    ['a symmetric proof algorithm', { algorithms: ['HS256'] }, '$.dpop.algorithms[0]'],
    ['an origin with a path', { origins: ['https://api.example.com/v1'] }, '$.dpop.origins[0]'],
    ['an origin without a scheme', { origins: ['api.example.com'] }, '$.dpop.origins[0]'],
    ['a negative window', { iatOffset: -1 }, '$.dpop.iatOffset'],
    ['an empty replay cache', { jtiCacheSize: 0 }, '$.dpop.jtiCacheSize'],
    ['an unknown option', { nonce: true }, '$.dpop'],
    ['not an object', 'yes', '$.dpop'],
  ])('%s is a ConfigError', (_case, dpop, path) => {
    expect(() => bearerJwt({ ...HS256, dpop } as BearerJwtConfig)).toThrow(ConfigError);
    expect(() => bearerJwt({ ...HS256, dpop } as BearerJwtConfig)).toThrow(expect.objectContaining({ path }));
  });
});
