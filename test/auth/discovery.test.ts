import type { RequestListener } from 'node:http';
import { SignJWT } from 'jose';
import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { signingKey, signWith, wait, type SigningKey } from '../helpers/jwks-server';
import { listen } from '../helpers/listen';

// issuerBaseURL: the key set and the algorithms come from the issuer's metadata (OpenID Connect
// discovery, else RFC 8414), fetched with the key set's time limit and a size limit, checked
// against the expected issuer, cached and refreshed.

/** What a metadata URL answers: a document, an error status, or a misbehaviour. */
type Answer = Record<string, unknown> | number | 'never' | 'huge';
type Place = 'openid' | 'oauth';

interface Provider {
  /** http://127.0.0.1:<port>/realm, the issuer. */
  base: string;
  fetches: Record<Place | 'jwks' | 'jwks2', number>;
  answer(place: Place, answer: Answer | undefined): void;
  close(): Promise<void>;
}

/** An express server on 127.0.0.1: the two metadata places of the issuer /realm, and two key sets (key A, then keys A and B). */
async function startProvider(answers: Partial<Record<Place, (base: string) => Answer>>): Promise<Provider> {
  const express = require('express') as () => { get: (path: string, handler: (req: unknown, res: ExpressResponse) => void) => void };
  type ExpressResponse = { status: (code: number) => ExpressResponse; json: (body: unknown) => void; write: (chunk: string) => void; end: () => void; setHeader: (name: string, value: string) => void };
  const app = express();
  const fetches = { openid: 0, oauth: 0, jwks: 0, jwks2: 0 };
  const current: Partial<Record<Place, Answer>> = {};
  const serve = (place: Place) => (_req: unknown, res: ExpressResponse) => {
    fetches[place] += 1;
    const answer = current[place];
    if (answer === undefined) res.status(404).json({ error: 'not found' });
    else if (answer === 'never') return;
    else if (answer === 'huge') {
      res.setHeader('content-type', 'application/json');
      res.write(`{"padding":"${'x'.repeat(2 * 1024 * 1024)}"}`);
      res.end();
    } else if (typeof answer === 'number') res.status(answer).json({ error: 'failed' });
    else res.json(answer);
  };
  app.get('/realm/.well-known/openid-configuration', serve('openid'));
  app.get('/.well-known/oauth-authorization-server/realm', serve('oauth'));
  app.get('/realm/jwks', (_req, res) => {
    fetches.jwks += 1;
    res.json({ keys: [keyA.jwk] });
  });
  app.get('/realm/jwks2', (_req, res) => {
    fetches.jwks2 += 1;
    res.json({ keys: [keyA.jwk, keyB.jwk] });
  });
  const server = await listen(app as unknown as RequestListener);
  const base = `${server.url}/realm`;
  for (const place of ['openid', 'oauth'] as const) current[place] = answers[place]?.(base);
  return {
    base,
    fetches,
    answer: (place, answer) => {
      current[place] = answer;
    },
    close: () => {
      server.server.closeAllConnections();
      return server.close();
    },
  };
}

const openidDocument = (base: string, extra: Record<string, unknown> = {}) => ({
  issuer: base,
  jwks_uri: `${base}/jwks`,
  id_token_signing_alg_values_supported: ['none', 'HS256', 'ES256'],
  ...extra,
});

let keyA: SigningKey;
let keyB: SigningKey;
let provider: Provider | undefined;
beforeAll(async () => {
  [keyA, keyB] = await Promise.all([signingKey('a'), signingKey('b')]);
});
afterEach(async () => {
  jest.restoreAllMocks();
  await provider?.close();
  provider = undefined;
});

const AUDIENCE = 'https://api.example.com';
const bearer = async (key: SigningKey, iss: string, claims: Record<string, unknown> = {}) => `Bearer ${await signWith(key, { iss, aud: AUDIENCE, sub: key.kid, ...claims })}`;
const unavailable = (reason: string) => expect.objectContaining({ code: 'ERR_JWKS_UNAVAILABLE', description: 'the key set cannot be fetched', reason: expect.stringContaining(reason) });

describe('discovery', () => {
  test('OpenID Connect discovery: the issuer defaults to the base URL, the key set and algorithms come from the metadata', async () => {
    provider = await startProvider({ openid: openidDocument });
    const { base } = provider;
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: base, strict: true });
    await verify.ready();
    await expect(verify(await bearer(keyA, base))).resolves.toMatchObject({ sub: 'a', iss: base });
    expect(provider.fetches).toEqual({ openid: 1, oauth: 0, jwks: 1, jwks2: 0 });
    await expect(verify(await bearer(keyA, 'https://someone-else.test'))).rejects.toMatchObject({ description: "the token's issuer is not accepted" });
  });

  test('none and HS* listed by the metadata are never accepted', async () => {
    provider = await startProvider({ openid: openidDocument });
    const { base } = provider;
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: base });
    const hs256 = await new SignJWT({ iss: base, sub: 'forged' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('a-guessed-secret-that-is-32-bytes!'));
    await expect(verify(`Bearer ${hs256}`)).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ iss: base, sub: 'forged' })).toString('base64url')}.`;
    await expect(verify(`Bearer ${unsigned}`)).rejects.toMatchObject({ code: expect.stringMatching(/^ERR_J/) });
    await verify.ready();
  });

  test('configured algorithms win over the metadata', async () => {
    provider = await startProvider({ openid: openidDocument });
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, algorithms: ['RS256'] });
    await expect(verify(await bearer(keyA, provider.base))).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED', description: "the token's algorithm is not accepted" });
    await verify.ready();
    expect(warning).toHaveBeenCalledWith(expect.stringContaining('holds no key for RS256'), { code: 'SVCGATE_KEY_SET_UNUSABLE' });
  });

  test('a 404 for the OpenID document: the RFC 8414 document, path after the well-known part', async () => {
    provider = await startProvider({ oauth: (base) => ({ issuer: base, jwks_uri: `${base}/jwks` }) });
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, algorithms: ['ES256'], strict: true });
    await verify.ready();
    await expect(verify(await bearer(keyA, provider.base))).resolves.toMatchObject({ sub: 'a' });
    expect(provider.fetches).toEqual({ openid: 1, oauth: 1, jwks: 1, jwks2: 0 });
  });

  test('metadata that lists no usable algorithm, and none configured: refused, and said at start-up', async () => {
    provider = await startProvider({ oauth: (base) => ({ issuer: base, jwks_uri: `${base}/jwks`, id_token_signing_alg_values_supported: ['none', 'HS256'] }) });
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base });
    await verify.ready();
    expect(warning).toHaveBeenCalledWith(expect.stringContaining('lists no signing algorithm'), { code: 'SVCGATE_KEY_SET_UNAVAILABLE' });
    await expect(verify(await bearer(keyA, provider.base))).rejects.toEqual(unavailable('set algorithms'));
  });

  test('an issuer configured apart from the base URL is the one the metadata must name', async () => {
    const issuer = 'https://login.example.test/realm';
    provider = await startProvider({ openid: (base) => openidDocument(base, { issuer }) });
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, issuer, strict: true });
    await verify.ready();
    await expect(verify(await bearer(keyA, issuer))).resolves.toMatchObject({ iss: issuer });
  });
});

describe('what is refused', () => {
  test('metadata naming another issuer: no key of it is fetched or trusted', async () => {
    provider = await startProvider({ openid: (base) => openidDocument(base, { issuer: 'https://evil.test' }) });
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, strict: true });
    const error = await verify.ready().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ path: '$.issuerBaseURL', problem: expect.stringContaining(`names "https://evil.test", not "${provider.base}"`) });
    await expect(verify(await bearer(keyA, provider.base))).rejects.toEqual(unavailable('names "https://evil.test"'));
    expect(provider.fetches.jwks).toBe(0);
  });

  test.each([
    ['a document over 1 MiB', 'huge' as const, 'sent more than 1048576 bytes'],
    ['a server that never answers', 'never' as const, 'did not answer in full within 300 ms'],
  ])('%s: refused within the limits, without trying the other place', async (_case, answer, reason) => {
    provider = await startProvider({ openid: () => answer, oauth: openidDocument });
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, timeoutDuration: 300, strict: true });
    await expect(verify.ready()).rejects.toMatchObject({ path: '$.issuerBaseURL', problem: expect.stringContaining(reason) });
    await expect(verify(await bearer(keyA, provider.base))).rejects.toEqual(unavailable(reason));
    expect(provider.fetches.oauth).toBe(0);
  });

  test.each([
    ['a jwks_uri that is not a URL', { jwks_uri: 'not a url' }, 'has no http(s) jwks_uri'],
    ['a jwks_uri that is not http(s)', { jwks_uri: 'file:///etc/keys.json' }, 'has no http(s) jwks_uri'],
    ['no issuer', { issuer: undefined }, 'names no issuer'],
  ])('%s', async (_case, extra, reason) => {
    provider = await startProvider({ openid: (base) => openidDocument(base, extra) });
    await expect(bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, strict: true }).ready()).rejects.toMatchObject({ problem: expect.stringContaining(reason) });
  });

  test('neither place has the document: both answers are named', async () => {
    provider = await startProvider({});
    await expect(bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base, strict: true }).ready()).rejects.toMatchObject({
      problem: expect.stringMatching(/openid-configuration answered 404.*oauth-authorization-server\/realm answered 404/),
    });
  });
});

describe('cached and refreshed', () => {
  test('lookups at the same time share one fetch of the metadata and one of the key set', async () => {
    provider = await startProvider({ openid: openidDocument });
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: provider.base });
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, n) => bearer(keyA, provider!.base, { n })));
    await Promise.all(tokens.map((token) => verify(token)));
    await verify.ready();
    expect(provider.fetches).toMatchObject({ openid: 1, jwks: 1 });
  });

  test('fetched again once older than cacheMaxAge, and a new jwks_uri brings the new key set', async () => {
    provider = await startProvider({ openid: openidDocument });
    const { base } = provider;
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: base, cacheMaxAge: 200, cooldownDuration: 60_000 });
    await verify.ready();
    await verify(await bearer(keyA, base, { n: 1 }));
    await verify(await bearer(keyA, base, { n: 2 }));
    expect(provider.fetches.openid).toBe(1);
    provider.answer('openid', openidDocument(base, { jwks_uri: `${base}/jwks2` }));
    await expect(verify(await bearer(keyB, base))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
    await wait(300);
    await expect(verify(await bearer(keyB, base))).resolves.toMatchObject({ sub: 'b' });
    expect(provider.fetches).toMatchObject({ openid: 2, jwks2: 1 });
  });

  test('a failed refresh keeps the last good metadata, and is not tried again before the cooldown', async () => {
    provider = await startProvider({ openid: openidDocument });
    const { base } = provider;
    const verify = bearerJwt({ audience: AUDIENCE, issuerBaseURL: base, cacheMaxAge: 200, cooldownDuration: 60_000 });
    await verify.ready();
    provider.answer('openid', 500);
    await wait(300);
    await expect(verify(await bearer(keyA, base, { n: 1 }))).resolves.toMatchObject({ n: 1 });
    await expect(verify(await bearer(keyA, base, { n: 2 }))).resolves.toMatchObject({ n: 2 });
    expect(provider.fetches).toMatchObject({ openid: 2, oauth: 1 });
  });
});

describe('configuration', () => {
  test.each([
    ['with a secret', { issuerBaseURL: 'https://login.test', secret: 'a-test-secret-that-is-32-bytes-long!' }, '$.issuerBaseURL', 'issuerBaseURL is given with secret'],
    ['with jwks', { issuerBaseURL: 'https://login.test', jwks: 'https://login.test/jwks' }, '$.issuerBaseURL', 'issuerBaseURL is given with jwks'],
    ['with a query', { issuerBaseURL: 'https://login.test/realm?x=1' }, '$.issuerBaseURL', 'no query or fragment'],
    ['not http(s)', { issuerBaseURL: 'ftp://login.test/realm' }, '$.issuerBaseURL', 'ftp: is not fetched'],
    ['not a URL', { issuerBaseURL: 'login.test' }, '$.issuerBaseURL', 'issuerBaseURL must be a URL'],
    ['with HS256', { issuerBaseURL: 'https://login.test', algorithms: ['HS256'] }, '$.algorithms', 'HS256 cannot be used with a JWK set'],
  ])('issuerBaseURL %s: ConfigError', (_case, config, path, problem) => {
    let thrown: unknown;
    try {
      bearerJwt(config as Parameters<typeof bearerJwt>[0]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).toMatchObject({ path, problem: expect.stringContaining(problem) });
  });
});
