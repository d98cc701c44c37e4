import { spawn } from 'node:child_process';
import { exportJWK } from 'jose';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { bearerJwt, JsonWebTokenError } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { signingKey, signWith, startJwksServer, wait, type JwksServer, type SigningKey } from '../helpers/jwks-server';
import { listen } from '../helpers/listen';
import { HS256 } from '../helpers/tokens';

// A remote key set: its timings as options, its fetch bounded in size and time, and the check
// at creation that ready() reports.
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'https://api.example.com';
const ROOT = join(__dirname, '../..');

let keyA: SigningKey;
let keyB: SigningKey;
let jwks: JwksServer;
beforeAll(async () => {
  [keyA, keyB] = await Promise.all([signingKey('a'), signingKey('b')]);
  jwks = await startJwksServer([keyA]);
});
afterAll(() => jwks.close());
beforeEach(() => jwks.serve([keyA]));
afterEach(() => jest.restoreAllMocks());

const bearer = async (key: SigningKey, claims: Record<string, unknown> = {}) => `Bearer ${await signWith(key, { iss: ISSUER, aud: AUDIENCE, sub: key.kid, ...claims })}`;

/** A server on 127.0.0.1 that answers every request with `answer`. */
async function serving(answer: (req: IncomingMessage, res: ServerResponse) => void) {
  return listen(answer);
}

/** A URL on 127.0.0.1 where nothing listens. */
async function closedUrl(): Promise<string> {
  const server = await listen(() => undefined);
  await server.close();
  return `${server.url}/jwks.json`;
}

describe('timings are options, checked at creation', () => {
  test.each([
    ['with a secret', { ...HS256, cacheMaxAge: 1000 }, '$.cacheMaxAge', 'applies only to a key set that is fetched'],
    ['with a local set', { issuer: ISSUER, jwks: { keys: [] }, algorithms: ['ES256'], cooldownDuration: 1000 }, '$.cooldownDuration', 'applies only to a key set that is fetched'],
    ['beyond what a Node timer holds', { issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks', algorithms: ['ES256'], timeoutDuration: 2 ** 31 }, '$.timeoutDuration', '2147483647'],
    ['negative', { issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks', algorithms: ['ES256'], cooldownDuration: -1 }, '$.cooldownDuration', ''],
    ['not a whole number of ms', { issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks', algorithms: ['ES256'], cacheMaxAge: 1.5 }, '$.cacheMaxAge', ''],
    ['a zero timeout', { issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks', algorithms: ['ES256'], timeoutDuration: 0 }, '$.timeoutDuration', ''],
    ['a key set URL that is not http(s)', { issuer: ISSUER, jwks: 'file:///etc/jwks.json', algorithms: ['ES256'] }, '$.jwks', 'file: is not fetched'],
    ['a key set URL without algorithms', { issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks' }, '$.algorithms', 'HS256 (the default) cannot be used with a JWK set'],
    ['a key set URL and a secret', { ...HS256, jwks: 'http://127.0.0.1:9/jwks', algorithms: ['ES256'] }, '$', 'both secret and jwks are given'],
  ])('%s: ConfigError', (_case, config, path, problem) => {
    let thrown: unknown;
    try {
      bearerJwt(config as Parameters<typeof bearerJwt>[0]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).toMatchObject({ path });
    expect((thrown as ConfigError).problem).toContain(problem);
  });
});

/** A provider serving keyA's set, answering 500 while `failing`; counts the fetches. */
async function providerThatFails(): Promise<{ url: string; fetches: number; failing: boolean; close: () => Promise<void> }> {
  const served = await listen((_req, res) => {
    provider.fetches += 1;
    res.statusCode = provider.failing ? 500 : 200;
    res.end(provider.failing ? 'down' : JSON.stringify({ keys: [keyA.jwk] }));
  });
  const provider = { url: `${served.url}/jwks.json`, fetches: 0, failing: false, close: served.close };
  return provider;
}

describe('the key set follows the provider', () => {
  test('a new kid is refused during the cooldown without another fetch, and found once the cooldown has passed', async () => {
    const patient = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cooldownDuration: 60_000 });
    const eager = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cooldownDuration: 100 });
    await Promise.all([patient.ready(), eager.ready()]);
    await expect(patient(await bearer(keyA))).resolves.toMatchObject({ sub: 'a' });
    jwks.serve([keyA, keyB]);
    const fetches = jwks.fetches;
    await wait(250);
    await expect(patient(await bearer(keyB))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY', description: 'no key of the key set matches the token' });
    expect(jwks.fetches).toBe(fetches);
    await expect(eager(await bearer(keyB))).resolves.toMatchObject({ sub: 'b' });
    expect(jwks.fetches).toBe(fetches + 1);
  });

  test('while the provider fails, unknown kids bring one fetch per cooldown, not one per request', async () => {
    const provider = await providerThatFails();
    try {
      const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: provider.url, algorithms: ['ES256'], cooldownDuration: 200 });
      await verify.ready();
      provider.failing = true;
      await wait(250);
      // The first unknown kid after the cooldown tries the provider, which fails.
      await expect(verify(await bearer(keyB))).rejects.toMatchObject({ code: 'ERR_JWKS_UNAVAILABLE' });
      const afterFailure = provider.fetches;
      // A storm of made-up kids within the cooldown of that failure: answered with the set at hand, no fetch each.
      for (let n = 0; n < 20; n += 1) await expect(verify(await bearer(keyB, { n }))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
      expect(provider.fetches).toBe(afterFailure);
      await expect(verify(await bearer(keyA))).resolves.toMatchObject({ sub: 'a' });
      // Once that cooldown has passed, an unknown kid tries again, and a provider back up brings the key.
      provider.failing = false;
      await wait(250);
      await expect(verify(await bearer(keyB))).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
      expect(provider.fetches).toBe(afterFailure + 1);
    } finally {
      await provider.close();
    }
  });

  test('a stale set that the provider fails to send again: one fetch per cooldown, each token refused meanwhile', async () => {
    const provider = await providerThatFails();
    try {
      const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: provider.url, algorithms: ['ES256'], cacheMaxAge: 100, cooldownDuration: 400, cache: false });
      await verify.ready();
      provider.failing = true;
      await wait(150);
      await expect(verify(await bearer(keyA))).rejects.toMatchObject({ code: 'ERR_JWKS_UNAVAILABLE', description: 'the key set cannot be fetched' });
      const afterFailure = provider.fetches;
      for (let n = 0; n < 20; n += 1) await expect(verify(await bearer(keyA, { n }))).rejects.toMatchObject({ code: 'ERR_JWKS_UNAVAILABLE' });
      expect(provider.fetches).toBe(afterFailure);
      provider.failing = false;
      await wait(450);
      await expect(verify(await bearer(keyA))).resolves.toMatchObject({ sub: 'a' });
      expect(provider.fetches).toBe(afterFailure + 1);
    } finally {
      await provider.close();
    }
  });

  test('a set older than cacheMaxAge is fetched again before it verifies a token', async () => {
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'], cacheMaxAge: 200 });
    await verify.ready();
    const fetches = jwks.fetches;
    await expect(verify(await bearer(keyA, { n: 1 }))).resolves.toMatchObject({ n: 1 });
    expect(jwks.fetches).toBe(fetches);
    await wait(300);
    await expect(verify(await bearer(keyA, { n: 2 }))).resolves.toMatchObject({ n: 2 });
    expect(jwks.fetches).toBe(fetches + 1);
  });

  test('lookups at the same time share one fetch', async () => {
    const fetches = jwks.fetches;
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'] });
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, n) => bearer(keyA, { n })));
    await Promise.all(tokens.map((token) => verify(token)));
    expect(jwks.fetches).toBe(fetches + 1);
  });

  test('a set whose members carry odd values still verifies with its keys', async () => {
    // Nested deeper than a structured clone (which jose makes of a set) can go.
    const nested = '['.repeat(200_000) + ']'.repeat(200_000);
    const server = await serving((_req, res) => res.end(`{"keys":[${JSON.stringify(keyA.jwk).slice(0, -1)},"x5c":${nested}},"not a key",null]}`));
    try {
      const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: `${server.url}/jwks`, algorithms: ['ES256'] });
      await expect(verify(await bearer(keyA))).resolves.toMatchObject({ sub: 'a' });
    } finally {
      await server.close();
    }
  });
});

describe('a fetched set selects keys as jose does', () => {
  const servingSet = async (key: Record<string, unknown>) => serving((_req, res) => res.end(JSON.stringify({ keys: [key] })));
  const refusal = async (key: Record<string, unknown>, signer: SigningKey = keyA) => {
    const server = await servingSet(key);
    try {
      const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: `${server.url}/jwks`, algorithms: [signer.alg] });
      return await verify(await bearer(signer)).then(() => 'accepted', (error: JsonWebTokenError) => error.code);
    } finally {
      await server.close();
    }
  };

  test('a set that publishes a private key is refused, not used with its public half', async () => {
    // Before: only the public members were read, so a leaked private key (anyone could sign with it) verified tokens.
    const { d } = await exportPrivate(keyA);
    expect(await refusal({ ...keyA.jwk, d })).toBe('ERR_JWKS_INVALID');
  });

  test('a set that publishes a whole RSA private key is refused as a private key too', async () => {
    // Before: of the private members only d was kept, which Node cannot import an RSA key from: ERR_JWT_INVALID, where jose's set says ERR_JWKS_INVALID.
    const rsa = await signingKey(undefined, 'RS256');
    expect(await refusal({ ...(await exportPrivate(rsa)), kid: undefined }, rsa)).toBe('ERR_JWKS_INVALID');
  });

  test('an RSA key with other primes (oth), of any value, is not supported, as in jose', async () => {
    // Before: oth was not read, so the key verified where jose refuses it (ERR_JOSE_NOT_SUPPORTED).
    const rsa = await signingKey(undefined, 'RS256');
    for (const oth of [[], null, 0]) expect([oth, await refusal({ ...rsa.jwk, oth }, rsa)]).toEqual([oth, 'ERR_JOSE_NOT_SUPPORTED']);
    expect(await refusal({ ...rsa.jwk }, rsa)).toBe('accepted');
  });

  test('key_ops that does not list verify excludes the key, whatever else it holds', async () => {
    // Before: a key_ops list with a non-string was dropped, and the key verified.
    expect(await refusal({ ...keyA.jwk, key_ops: ['sign', 1] })).toBe('ERR_JWKS_NO_MATCHING_KEY');
    expect(await refusal({ ...keyA.jwk, key_ops: ['verify', 1] })).toBe('accepted');
  });
});

async function exportPrivate(key: SigningKey): Promise<{ d: string }> {
  return (await exportJWK(key.privateKey)) as { d: string };
}

describe('a fetch is bounded in size and time: the token is refused, the request never hangs', () => {
  const refused = (reason: string) => expect.objectContaining({ code: 'ERR_JWKS_UNAVAILABLE', description: 'the key set cannot be fetched', reason: expect.stringContaining(reason) });
  const cases: [string, (req: IncomingMessage, res: ServerResponse) => void, string][] = [
    [
      'a body over 1 MiB, sent without a length',
      (_req, res) => {
        res.write(`{"keys":[],"padding":"${'x'.repeat(1024 * 1024)}`);
        res.end('"}');
      },
      'sent more than 1048576 bytes',
    ],
    ['a body announced over 1 MiB', (_req, res) => res.writeHead(200, { 'content-length': String(2 * 1024 * 1024) }).write('{'), 'sent more than 1048576 bytes'],
    ['headers, then nothing', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{"keys":'), 'did not answer in full within 300 ms'],
    ['no answer at all', () => undefined, 'did not answer in full within 300 ms'],
    ['a redirect, not followed', (_req, res) => res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end(), 'redirects are not followed'],
    ['an error status', (_req, res) => res.writeHead(500).end(), 'answered 500'],
    ['a body that is not JSON', (_req, res) => res.end('<html>'), 'did not send UTF-8 JSON'],
    ['JSON that is not a JWK set', (_req, res) => res.end('{"keys":"none"}'), 'is not a JWK set'],
  ];

  test.each(cases)('%s', async (_case, answer, reason) => {
    jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const server = await serving(answer);
    try {
      const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: `${server.url}/jwks`, algorithms: ['ES256'], timeoutDuration: 300 });
      const error = await verify(await bearer(keyA)).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(JsonWebTokenError);
      expect(error).toEqual(refused(reason));
    } finally {
      server.server.closeAllConnections();
      await server.close();
    }
  });

  test('an unreachable key set is refused with the reason for logs, and the description for the caller', async () => {
    jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const url = await closedUrl();
    const error = await bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: url, algorithms: ['ES256'] })(await bearer(keyA)).catch((thrown: unknown) => thrown);
    expect(error).toEqual(refused('cannot be reached (ECONNREFUSED)'));
    expect((error as JsonWebTokenError).reason).toContain(url);
  });

  test('a user and password in the URL are never shown', async () => {
    jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const url = new URL(await closedUrl());
    url.username = 'svc';
    url.password = 'hunter2';
    const error = (await bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: url.href, algorithms: ['ES256'] })(await bearer(keyA)).catch((thrown: unknown) => thrown)) as JsonWebTokenError;
    expect(error.reason).toContain(`127.0.0.1:${url.port}/jwks.json`);
    expect(error.reason).not.toContain('hunter2');
  });
});

describe('the start-up check: ready()', () => {
  test('the set is fetched at creation, once: the first token needs no other fetch', async () => {
    const fetches = jwks.fetches;
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES256'] });
    await expect(verify.ready()).resolves.toBeUndefined();
    expect(jwks.fetches).toBe(fetches + 1);
    await verify(await bearer(keyA));
    expect(jwks.fetches).toBe(fetches + 1);
  });

  test('by default an unreachable set is a warning naming the URL and what failed, and ready() resolves', async () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const url = await closedUrl();
    await expect(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: url, algorithms: ['ES256'] }).ready()).resolves.toBeUndefined();
    expect(warning).toHaveBeenCalledTimes(1);
    const [message, options] = warning.mock.calls[0] as [string, { code: string }];
    expect(options.code).toBe('SVCGATE_KEY_SET_UNAVAILABLE');
    expect(message).toContain(url);
    expect(message).toContain('ECONNREFUSED');
  });

  test('with strict: true, ready() rejects with a ConfigError for $.jwks, and nothing is warned', async () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: await closedUrl(), algorithms: ['ES256'], strict: true });
    const error = await verify.ready().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ file: '<bearerJwt config>', path: '$.jwks', problem: expect.stringContaining('the key set cannot be fetched at start-up') });
    expect(warning).not.toHaveBeenCalled();
  });

  test('a set with no key for the configured algorithms is a warning, and with strict a ConfigError', async () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    await bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['RS256', 'EdDSA'] }).ready();
    expect(warning).toHaveBeenCalledWith(expect.stringContaining('holds no key for RS256, EdDSA'), { code: 'SVCGATE_KEY_SET_UNUSABLE' });
    await expect(bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: jwks.url, algorithms: ['ES384'], strict: true }).ready()).rejects.toMatchObject({ path: '$.jwks', problem: expect.stringContaining('holds no key for ES384') });
  });

  test('a key given in the configuration is ready at once', async () => {
    await expect(bearerJwt(HS256).ready()).resolves.toBeUndefined();
  });

  test('a failed check is no unhandled rejection, and a set that never answers does not keep the process alive', async () => {
    const silent = await serving(() => undefined);
    const auth = JSON.stringify(join(ROOT, 'dist/cjs/auth/index.js'));
    const script = `
      const { bearerJwt } = require(${auth});
      bearerJwt({ issuer: 'x', audience: 'api', jwks: ${JSON.stringify(await closedUrl())}, algorithms: ['ES256'], strict: true });
      bearerJwt({ issuer: 'x', audience: 'api', jwks: ${JSON.stringify(`${silent.url}/jwks`)}, algorithms: ['ES256'], timeoutDuration: 600000 });
      process.on('exit', () => console.log('exited by itself'));`;
    const child = spawn(process.execPath, ['--unhandled-rejections=strict', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    silent.server.closeAllConnections();
    await silent.close();
    expect({ code, output: output.trim() }).toEqual({ code: 0, output: 'exited by itself' });
  });
});
