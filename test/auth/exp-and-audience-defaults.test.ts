import { spawnSync } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import { generateKeyPair, SignJWT } from 'jose';
import { bearerJwt, bearerJwtAcl, JsonWebTokenError, type BearerJwtConfig } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { ISSUER, SECRET } from '../helpers/tokens';

// SPEC 9.6: exp is required unless requiredClaims leaves it out; keys from an identity provider
// need an audience (or audience: false, on purpose); a secret without one warns (strict: an error).
const ROOT = join(__dirname, '../..');
const EXAMPLE = join(ROOT, 'examples/users-api');
const OPENAPI = join(EXAMPLE, 'openapi.yaml');
const PERMISSIONS = join(EXAMPLE, 'permissions.yaml');
const PATH = '/api/v1/users/3';
const AUDIENCE = 'https://api.example.com';
const NO_EXP = 'the token has no exp claim, which is required by default (to accept tokens without exp, configure requiredClaims without exp)';
const now = () => Math.floor(Date.now() / 1000);

/** An HS256 token of the test issuer with no exp claim at all. */
function tokenWithoutExp(claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, role: 'user', userId: 3, ...claims }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
}

async function get(url: string, token: string) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, challenge: response.headers.get('www-authenticate'), body: (await response.json()) as Record<string, unknown> };
}

function configErrorOf(create: () => unknown): ConfigError {
  try {
    create();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('no ConfigError was thrown');
}

/**
 * The SVCGATE_NO_AUDIENCE warnings a process gets from `bearerJwt(config)`, as its 'warning'
 * listeners see them. In a child process on the built package: jest's sandbox has its own
 * `process`, which the real process's 'warning' events never reach.
 */
function noAudienceWarnings(config: BearerJwtConfig): { code: string; message: string }[] {
  const script = [
    "const { bearerJwt } = require('svcgate/auth');",
    'const seen = [];',
    "process.on('warning', (warning) => seen.push({ code: warning.code, message: warning.message }));",
    'bearerJwt(JSON.parse(process.argv[1]));',
    'setImmediate(() => process.stdout.write(JSON.stringify(seen)));',
  ].join('\n');
  const child = spawnSync(process.execPath, ['-e', script, JSON.stringify(config)], { cwd: ROOT, encoding: 'utf8' });
  expect(child.status).toBe(0);
  return (JSON.parse(child.stdout) as { code: string; message: string }[]).filter(({ code }) => code === 'SVCGATE_NO_AUDIENCE');
}

describe('exp is required by default', () => {
  const config = { issuer: ISSUER, secret: SECRET, audience: AUDIENCE } as const;

  test('the verifier refuses a token without exp, saying so and how to opt out', async () => {
    const error = await bearerJwt(config)(`Bearer ${await tokenWithoutExp()}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonWebTokenError);
    expect(error).toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', description: NO_EXP });
  });

  test('requiredClaims without exp opts out: [] and a list naming other claims accept it', async () => {
    const token = await tokenWithoutExp({ sub: 'u3' });
    await expect(bearerJwt({ ...config, requiredClaims: [] })(`Bearer ${token}`)).resolves.toMatchObject({ sub: 'u3' });
    await expect(bearerJwt({ ...config, requiredClaims: ['sub'] })(`Bearer ${token}`)).resolves.toMatchObject({ sub: 'u3' });
  });

  test('exp required by the configuration is described without the opt-out', async () => {
    const token = await tokenWithoutExp();
    await expect(bearerJwt({ ...config, requiredClaims: ['exp'] })(`Bearer ${token}`)).rejects.toMatchObject({ description: 'the token has no exp claim' });
  });

  describe('Express + bearerJwtAcl, over HTTP', () => {
    const servers: { url: string; close: () => Promise<void> }[] = [];
    const serve = async (jwt: BearerJwtConfig) => {
      const app = express();
      app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(jwt), acl: { bearerAuth: PERMISSIONS } }));
      app.use((_req, res) => void res.json({ ok: true }));
      const server = await listen(app as unknown as RequestListener);
      servers.push(server);
      return server.url;
    };
    afterAll(() => Promise.all(servers.map((server) => server.close())));

    test('a token without exp: 401 whose challenge and message say exp is missing and how to opt out', async () => {
      const answer = await get(`${await serve(config)}${PATH}`, await tokenWithoutExp());
      expect(answer).toEqual({ status: 401, challenge: `Bearer error="invalid_token", error_description="${NO_EXP}"`, body: { error: 'Unauthorized', message: NO_EXP, code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' } });
    });

    test('with requiredClaims: [] the same token is served', async () => {
      expect(await get(`${await serve({ ...config, requiredClaims: [] })}${PATH}`, await tokenWithoutExp())).toMatchObject({ status: 200, body: { ok: true } });
    });
  });

  describe('@oas-tools/core + BearerJWT + jwtErrorHandler', () => {
    let host: OasHost;
    beforeAll(async () => {
      host = await startOasHost({ openapi: OPENAPI, jwt: { ...config }, position: 2, acl: { bearerAuth: PERMISSIONS }, customHandler: true });
    });
    afterAll(() => host.stop());

    test('a token without exp: 401 whose challenge and message say exp is missing and how to opt out', async () => {
      const before = await host.calls();
      const answer = await get(`${host.url}${PATH}`, await tokenWithoutExp());
      expect(answer).toEqual({ status: 401, challenge: `Bearer error="invalid_token", error_description="${NO_EXP}"`, body: { error: 'Unauthorized', message: NO_EXP, code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' } });
      expect((await host.calls()).calls).toEqual(before.calls);
    });
  });
});

describe('keys from an identity provider need an audience', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = rsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
  const localSet = { keys: [{ ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }), kid: 'k1' }] };
  // Nothing is fetched on a ConfigError: it comes before the start-up check would start. Port 9 refuses at once otherwise.
  const sources: [string, BearerJwtConfig][] = [
    ['jwks (a URL)', { issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks.json', algorithms: ['ES256'] }],
    ['jwks (a local set)', { issuer: ISSUER, jwks: localSet, algorithms: ['ES256'] }],
    ['issuerBaseURL', { issuerBaseURL: 'http://127.0.0.1:9/realms/main' }],
    ['a public key as PEM text', { issuer: ISSUER, secret: pem, algorithms: ['RS256'] }],
    ['a public key as a Buffer', { issuer: ISSUER, secret: Buffer.from(pem), algorithms: ['RS256'] }],
    ['a public KeyObject', { issuer: ISSUER, secret: rsa.publicKey, algorithms: ['RS256'] }],
  ];

  test.each(sources)('%s without audience: a ConfigError naming the file, the path and the fix', (_name, config) => {
    const error = configErrorOf(() => bearerJwt(config));
    expect(error).toMatchObject({ file: '<bearerJwt config>', path: '$.audience' });
    expect(error.problem).toContain('a token the identity provider issued for any other API it serves would be accepted here');
    expect(error.fix).toContain('audience: false');
  });

  test.each(sources)('%s: audience: false says it on purpose, and an audience is enough', async (_name, config) => {
    for (const audience of [false, 'https://api.example.com'] as const) await bearerJwt({ ...config, audience }).ready();
  });

  test('audience: false checks no aud: a token for any audience verifies', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const handler = bearerJwt({ issuer: ISSUER, secret: publicKey as never, algorithms: ['ES256'], audience: false });
    const token = await new SignJWT({ iss: ISSUER, exp: now() + 60, aud: 'another-api' }).setProtectedHeader({ alg: 'ES256' }).sign(privateKey);
    await expect(handler(`Bearer ${token}`)).resolves.toMatchObject({ aud: 'another-api' });
  });

  test('each entry of issuers follows the rule, and may take the top-level audience', () => {
    const entries = (): BearerJwtConfig['issuers'] => [
      { issuer: 'c', secret: randomBytes(32), audience: 'api-c' },
      { issuer: 'b', jwks: 'http://127.0.0.1:9/jwks.json', algorithms: ['ES256'] },
      { issuer: 'd', secret: pem, algorithms: ['RS256'], audience: false },
    ];
    const error = configErrorOf(() => bearerJwt({ issuers: entries() }));
    expect(error.path).toBe('$.issuers[1].audience');
    expect(error.fix).toContain('in this entry, or at the top level for every entry');
    expect(() => bearerJwt({ audience: 'api', issuers: entries() })).not.toThrow();
    const [c, b, d] = entries()!;
    expect(() => bearerJwt({ issuers: [c!, { ...b!, audience: false }, d!] })).not.toThrow();
  });

  test("profile 'rfc9068' does not take audience: false", () => {
    expect(configErrorOf(() => bearerJwt({ issuer: ISSUER, secret: SECRET, profile: 'rfc9068', audience: false }))).toMatchObject({ path: '$.audience', problem: "profile 'rfc9068' needs the audience check (RFC 9068, section 4)" });
  });

  test('audience: true is refused', () => {
    expect(configErrorOf(() => bearerJwt({ issuer: ISSUER, secret: SECRET, audience: true } as unknown as BearerJwtConfig)).message).toContain('audience must be a string that is not empty or blank, a non-empty list of such strings, or false');
  });

  // Review of issue 27: audience ' ' (an unset variable in a padded template) was accepted as the
  // audience that makes keys from a provider safe to use, and checked tokens for aud ' '.
  test('a blank audience is refused, at the top level, in a list and in an entry; one with spaces around a name is kept as written', () => {
    const blank = "an audience must not be empty or blank: give the API's identifier, the aud value of its tokens";
    expect(configErrorOf(() => bearerJwt({ issuer: ISSUER, secret: pem, algorithms: ['RS256'], audience: ' ' }))).toMatchObject({ path: '$.audience', problem: blank });
    expect(configErrorOf(() => bearerJwt({ issuer: ISSUER, secret: pem, algorithms: ['RS256'], audience: ['api', '\t'] }))).toMatchObject({ path: '$.audience[1]', problem: blank });
    expect(configErrorOf(() => bearerJwt({ issuers: [{ issuer: ISSUER, jwks: 'http://127.0.0.1:9/jwks.json', algorithms: ['ES256'], audience: '  ' }] }))).toMatchObject({ path: '$.issuers[0].audience', problem: blank });
    expect(() => bearerJwt({ issuer: ISSUER, secret: pem, algorithms: ['RS256'], audience: ' api ' })).not.toThrow();
  });
});

// The warning tests run on dist/: `npm run build:ts` first.
describe('a secret without audience', () => {
  const secret = (name: string) => `${name}-${SECRET}`;

  test('warns SVCGATE_NO_AUDIENCE once per handler, naming every entry without one', () => {
    expect(noAudienceWarnings({ issuer: ISSUER, secret: SECRET })).toEqual([
      { code: 'SVCGATE_NO_AUDIENCE', message: expect.stringContaining('no audience is given for the secret at $, so a token signed with it for any other service') },
    ]);
    const two = noAudienceWarnings({ issuers: [{ issuer: 'a', secret: secret('a') }, { issuer: 'b', secret: secret('b') }, { issuer: 'c', secret: secret('c'), audience: 'api' }] });
    expect(two).toHaveLength(1);
    expect(two[0]!.message).toContain('the secret at $.issuers[0], $.issuers[1], so');
    expect(two[0]!.message).toContain('With strict: true this is an error');
  });

  test('an audience, or audience: false, leaves it silent', () => {
    expect(noAudienceWarnings({ issuer: ISSUER, secret: SECRET, audience: 'api' })).toEqual([]);
    expect(noAudienceWarnings({ issuer: ISSUER, secret: SECRET, audience: false })).toEqual([]);
  });

  test('with strict: true it is a ConfigError at creation', () => {
    const error = configErrorOf(() => bearerJwt({ issuer: ISSUER, secret: SECRET, strict: true }));
    expect(error).toMatchObject({ file: '<bearerJwt config>', path: '$.audience' });
    expect(error.fix).toContain('audience: false');
    expect(configErrorOf(() => bearerJwt({ strict: true, issuers: [{ issuer: 'a', secret: secret('a'), audience: 'api' }, { issuer: 'b', secret: secret('b') }] })).path).toBe('$.issuers[1].audience');
  });
});
