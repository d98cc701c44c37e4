import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { exportJWK, SignJWT } from 'jose';
import { bearerJwt, JsonWebTokenError, SecurityError } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { HS256, ISSUER, SECRET, token } from '../helpers/tokens';

describe('the handler', () => {
  const verify = bearerJwt(HS256);

  test('resolves to the verified payload', async () => {
    await expect(verify(`Bearer ${await token({ sub: 'u1', role: 'user' })}`)).resolves.toMatchObject({ sub: 'u1', role: 'user', iss: ISSUER });
  });

  test('the scheme is case-insensitive and may be followed by several spaces', async () => {
    await expect(verify(`bEaReR    ${await token({ sub: 'u1' })}`)).resolves.toMatchObject({ sub: 'u1' });
  });

  test.each([
    ['no header', undefined],
    ['a number', 42],
    ['another scheme', 'Basic YTpi'],
    ['no token', 'Bearer '],
    ['two tokens', 'Bearer a.b.c d.e.f'],
    ['a header over 8 KiB', `Bearer ${'a'.repeat(9000)}`],
  ])('%s is a SecurityError', async (_name, header) => {
    const error = await verify(header).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SecurityError);
    expect(error).toMatchObject({ name: 'SecurityError', code: 'ERR_SVCGATE_BEARER_FORMAT' });
  });

  test('every verification failure is a JsonWebTokenError with a stable code', async () => {
    const expired = await verify(`Bearer ${await token({ exp: Math.floor(Date.now() / 1000) - 60 })}`).catch((caught: unknown) => caught);
    expect(expired).toBeInstanceOf(JsonWebTokenError);
    expect(expired).toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JWT_EXPIRED' });
    const forged = await verify(`Bearer ${await token({}, 'another-secret-that-is-32-bytes-long')}`).catch((caught: unknown) => caught);
    expect(forged).toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
    const garbage = await verify('Bearer a.b.c').catch((caught: unknown) => caught);
    expect(garbage).toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JWS_INVALID' });
  });

  test('issuer may be a list', async () => {
    const either = bearerJwt({ ...HS256, issuer: ['other', ISSUER] });
    await expect(either(`Bearer ${await token()}`)).resolves.toMatchObject({ iss: ISSUER });
  });

  test('a Buffer and a secret KeyObject work as HMAC secrets', async () => {
    const jwt = `Bearer ${await token({ sub: 'b' })}`;
    await expect(bearerJwt({ issuer: ISSUER, secret: Buffer.from(SECRET) })(jwt)).resolves.toMatchObject({ sub: 'b' });
    await expect(bearerJwt({ issuer: ISSUER, secret: createSecretKey(Buffer.from(SECRET)) })(jwt)).resolves.toMatchObject({ sub: 'b' });
  });

  test('the misspelled algoritms option is honoured', async () => {
    const hs512 = bearerJwt({ ...HS256, algoritms: ['HS512'] });
    const error = await hs512(`Bearer ${await token()}`).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
  });
});

describe('key sets', () => {
  const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sign = (privateKey: ReturnType<typeof rsa>['privateKey'], kid: string) => new SignJWT({ iss: ISSUER, sub: kid }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);

  test('a local JWK set verifies by kid, so old and new keys both work during a rotation', async () => {
    const [old, next] = [rsa(), rsa()];
    const keys = [{ ...(await exportJWK(old.publicKey)), kid: 'old' }, { ...(await exportJWK(next.publicKey)), kid: 'new' }];
    const verify = bearerJwt({ issuer: ISSUER, jwks: { keys }, algorithms: ['RS256'] });
    await expect(verify(`Bearer ${await sign(old.privateKey, 'old')}`)).resolves.toMatchObject({ sub: 'old' });
    await expect(verify(`Bearer ${await sign(next.privateKey, 'new')}`)).resolves.toMatchObject({ sub: 'new' });
    await expect(verify(`Bearer ${await sign(next.privateKey, 'old')}`)).rejects.toBeInstanceOf(JsonWebTokenError);
  });

  test('a remote JWK set is fetched over HTTP', async () => {
    const pair = rsa();
    const keys = [{ ...(await exportJWK(pair.publicKey)), kid: 'k1' }];
    const jwksServer = await listen((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ keys }));
    });
    const verify = bearerJwt({ issuer: ISSUER, jwks: `${jwksServer.url}/jwks.json`, algorithms: ['RS256'] });
    await expect(verify(`Bearer ${await sign(pair.privateKey, 'k1')}`)).resolves.toMatchObject({ sub: 'k1' });
    await jwksServer.close();
  });
});

describe('bad configurations are ConfigErrors that name what is wrong', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
  test.each([
    ['no issuer', { secret: SECRET }, '$.issuer'],
    ['an empty issuer list', { issuer: [], secret: SECRET }, '$.issuer'],
    ['no key', { issuer: ISSUER }, 'no key is given'],
    ['an empty secret', { issuer: ISSUER, secret: '' }, 'the secret is empty'],
    ['alg none', { ...HS256, algorithms: ['none'] }, 'the algorithm "none" accepts unsigned tokens'],
    ['alg NONE', { ...HS256, algorithms: ['HS256', 'NONE'] }, 'the algorithm "none" accepts unsigned tokens'],
    ['an unknown algorithm', { ...HS256, algorithms: ['HS999'] }, 'unknown algorithm "HS999"'],
    ['both spellings, different values', { ...HS256, algoritms: ['HS256'], algorithms: ['HS512'] }, 'algoritms and algorithms are both given, with different values'],
    ['RS256 with an HMAC secret', { ...HS256, algorithms: ['RS256'] }, 'RS256 cannot be verified with an HMAC secret'],
    ['the default HS256 with an RSA public key', { issuer: ISSUER, secret: pem }, 'HS256 cannot be verified with a rsa public key'],
    ['a private key', { issuer: ISSUER, secret: privateKey, algorithms: ['RS256'] }, 'secret is a private key'],
    ['PEM text that is not a key', { issuer: ISSUER, secret: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----' }, 'the PEM text is not a public key'],
    ['secret and jwks together', { ...HS256, jwks: { keys: [] } }, 'both secret and jwks are given'],
    ['HS256 with a JWK set', { issuer: ISSUER, jwks: { keys: [] } }, 'HS256 cannot be used with a JWK set'],
    ['a secret of another type', { issuer: ISSUER, secret: 42 }, 'secret must be a string, a Buffer or a KeyObject'],
    ['an unknown option (a typo)', { ...HS256, audiance: 'x' }, 'Unrecognized key'],
    ['a negative clockTolerance', { ...HS256, clockTolerance: -1 }, '$.clockTolerance'],
  ])('%s', (_name, config, text) => {
    let error: unknown;
    try {
      bearerJwt(config as Parameters<typeof bearerJwt>[0]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(text);
    expect((error as Error).message).toContain('<bearerJwt config>');
  });

  test('an HMAC secret under 32 bytes is accepted with a warning (RFC 8725)', () => {
    const warning = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    bearerJwt({ issuer: ISSUER, secret: 'short' });
    expect(warning).toHaveBeenCalledWith('the HMAC secret has 5 bytes; RFC 8725 asks for at least 32', { code: 'SVCGATE_WEAK_SECRET' });
    warning.mockClear();
    bearerJwt(HS256);
    expect(warning).not.toHaveBeenCalled();
    warning.mockRestore();
  });
});
