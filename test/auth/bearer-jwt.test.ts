import { createHmac, createSecretKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, SignJWT } from 'jose';
import { bearerJwt, JsonWebTokenError, SecurityError } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { HS256, ISSUER, SECRET, token } from '../helpers/tokens';

const AUDIENCE = 'https://api.example.com';

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
    ['no token', 'Bearer '],
    ['two tokens', 'Bearer a.b.c d.e.f'],
    ['a header over 8 KiB', `Bearer ${'a'.repeat(9000)}`],
  ])('%s is a SecurityError', async (_name, header) => {
    const error = await verify(header).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SecurityError);
    expect(error).toMatchObject({ name: 'SecurityError', code: 'ERR_SVCGATE_BEARER_FORMAT' });
  });

  test.each(['Basic YTpi', 'Basic', 'DPoP a.b.c', 'Digest username="a"'])('another scheme (%s) is a SecurityError whose code says so', async (header) => {
    const error = await verify(header).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SecurityError);
    expect(error).toMatchObject({ name: 'SecurityError', code: 'ERR_SVCGATE_OTHER_SCHEME' });
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

  test('claims nested deeper than 64 levels are refused as not well-formed; 64 levels are accepted, frozen to the leaves', async () => {
    // Before: a payload nested some 7,000 levels (a raised maxHeaderBytes carries it) overflowed the stack while being frozen.
    // Signed by hand: the JSON text is written as text, as a builder of values would overflow first.
    const signedNesting = (levels: number): string => {
      const part = (text: string) => Buffer.from(text).toString('base64url');
      const input = `${part('{"alg":"HS256"}')}.${part(`{"iss":"${ISSUER}","exp":${Math.floor(Date.now() / 1000) + 600},"deep":${'['.repeat(levels)}"leaf"${']'.repeat(levels)}}`)}`;
      return `Bearer ${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
    };
    const verify = bearerJwt({ ...HS256, maxHeaderBytes: 100_000 });
    const deepest = await verify(signedNesting(63));
    let leafHolder: unknown = deepest.deep;
    for (let level = 2; level < 64; level++) leafHolder = (leafHolder as unknown[])[0];
    expect(Object.isFrozen(leafHolder)).toBe(true);
    for (const levels of [64, 20_000]) {
      const error = await verify(signedNesting(levels)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(JsonWebTokenError);
      expect(error).toMatchObject({ code: 'ERR_JWT_INVALID', reason: 'the claims nest deeper than 64 levels', description: 'the token is not a well-formed JWT' });
    }
  });
});

describe('key sets', () => {
  const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sign = (privateKey: ReturnType<typeof rsa>['privateKey'], kid: string) => new SignJWT({ iss: ISSUER, aud: AUDIENCE, sub: kid }).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('5m').sign(privateKey);

  test('a local JWK set verifies by kid, so old and new keys both work during a rotation', async () => {
    const [old, next] = [rsa(), rsa()];
    const keys = [{ ...(await exportJWK(old.publicKey)), kid: 'old' }, { ...(await exportJWK(next.publicKey)), kid: 'new' }];
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys }, algorithms: ['RS256'] });
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
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: `${jwksServer.url}/jwks.json`, algorithms: ['RS256'] });
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
    ['the default HS256 with an RSA public key', { issuer: ISSUER, secret: pem }, 'the secret holds a PEM "PUBLIC KEY" block, which HS256 would use as an HMAC secret'],
    ['a private key', { issuer: ISSUER, secret: privateKey, algorithms: ['RS256'] }, 'secret is a private key'],
    ['PEM text that is not a key', { issuer: ISSUER, secret: '-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----', algorithms: ['RS256'] }, 'the PEM text is not a public key'],
    ['secret and jwks together', { ...HS256, jwks: { keys: [] } }, 'both secret and jwks are given'],
    ['HS256 with a JWK set', { issuer: ISSUER, jwks: { keys: [] } }, 'HS256 cannot be used with a JWK set'],
    // A value structuredClone cannot copy escaped as a DataCloneError from bearerJwt() when the set was copied without a check.
    ['a JWK set holding a function', { issuer: ISSUER, audience: false, algorithms: ['RS256'], jwks: { keys: [{ kty: 'RSA', n: () => 'x', e: 'AQAB' }] } }, '$.jwks: invalid JWK set'],
    ['a secret of another type', { issuer: ISSUER, secret: 42 }, 'secret must be a string, a Buffer or a KeyObject'],
    ['an unknown option (a typo)', { ...HS256, audiance: 'x' }, 'Unrecognized key'],
    ['a negative clockTolerance', { ...HS256, clockTolerance: -1 }, '$.clockTolerance'],
    // Read once at start-up: before, a misspelt duration reached jose with every token, and every token was a 401.
    ['a clockTolerance that is not a duration', { ...HS256, clockTolerance: '5 secondz' }, '$.clockTolerance: "5 secondz" is not a duration'],
    ['a maxTokenAge that is not a duration', { ...HS256, maxTokenAge: 'one hour' }, '$.maxTokenAge: "one hour" is not a duration'],
    // A negative one let the token cache serve a token past the moment the checks refused it.
    ['a negative clockTolerance string', { ...HS256, clockTolerance: '-5s' }, '$.clockTolerance: "-5s" is a negative duration'],
    ['a negative maxTokenAge string', { ...HS256, maxTokenAge: '1 hour ago' }, '$.maxTokenAge: "1 hour ago" is a negative duration'],
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
    expect(warning).not.toHaveBeenCalledWith(expect.anything(), { code: 'SVCGATE_WEAK_SECRET' });
    warning.mockRestore();
  });
});

describe('no key confusion (SPEC 7.6): a key is never an HMAC secret', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const rsaPem = rsa.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const ecPem = ec.publicKey.export({ format: 'pem', type: 'spki' }).toString();
  const rsaDer = rsa.publicKey.export({ format: 'der', type: 'spki' });
  const rsaJwk = JSON.stringify(rsa.publicKey.export({ format: 'jwk' }));
  const ecJwk = JSON.stringify(ec.publicKey.export({ format: 'jwk' }));
  // A self-signed P-256 certificate (openssl req -x509 -newkey ec, CN=svcgate-test); only its encoding matters here.
  const certificate = [
    '-----BEGIN CERTIFICATE-----',
    'MIIBhjCCASugAwIBAgIUFSlTwcBdUCQhSSz14BnAXWl/gDIwCgYIKoZIzj0EAwIw',
    'FzEVMBMGA1UEAwwMc3ZjZ2F0ZS10ZXN0MCAXDTI2MTEyMzE5NDQxNloYDzIxMjYx',
    'MDMwMTk0NDE2WjAXMRUwEwYDVQQDDAxzdmNnYXRlLXRlc3QwWTATBgcqhkjOPQIB',
    'BggqhkjOPQMBBwNCAASGAL2YG53Op4PZ8sQaurgs8GjGcLJqub3JMj28AmuCpS0o',
    '2MtQT+wTriJetk4ugbggZPHdrN+88Us9L5VUUimjo1MwUTAdBgNVHQ4EFgQUBTq4',
    'GzOq1dtu0Wt95cqPCmnN7l8wHwYDVR0jBBgwFoAUBTq4GzOq1dtu0Wt95cqPCmnN',
    '7l8wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNJADBGAiEAqhh1iYpCBlXp',
    'b6wUkB9iPwtd+eZ3VCAxzGFCtJu26VgCIQCq1g9Zbg7gTmqBMyYoIfXRmHfjdKyW',
    'MgdzmQK6l+FkeQ==',
    '-----END CERTIFICATE-----',
  ].join('\n');
  const hmacSigned = (claims: Record<string, unknown>, key: Uint8Array) => new SignJWT({ iss: ISSUER, ...claims }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(key);

  function creationError(config: Parameters<typeof bearerJwt>[0]): ConfigError {
    try {
      bearerJwt(config);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return error as ConfigError;
    }
    throw new Error('expected a ConfigError at creation');
  }

  test('the finding: a public key file read into a Buffer is refused with HS256, so no token HMAC-signed with its bytes is ever accepted', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svcgate-keys-')), 'pub.pem');
    writeFileSync(file, rsaPem);
    const forged = await hmacSigned({ role: 'admin' }, readFileSync(file));

    const error = creationError({ issuer: ISSUER, secret: readFileSync(file) });
    expect(error.path).toBe('$.secret');
    expect(error.problem).toBe('the secret holds a PEM "PUBLIC KEY" block, which HS256 would use as an HMAC secret: anyone who has that key could sign tokens');
    expect(error.fix).toContain('pass it as a KeyObject or PEM with algorithms set to one of RS256');
    expect(error.fix).toContain('use a random secret of at least 32 bytes');

    // Read as what it is, the same Buffer verifies RS256 tokens and still never the forged one.
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: readFileSync(file), algorithms: ['RS256'] });
    const genuine = await new SignJWT({ iss: ISSUER, aud: AUDIENCE, role: 'user' }).setProtectedHeader({ alg: 'RS256' }).setExpirationTime('5m').sign(rsa.privateKey);
    await expect(verify(`Bearer ${genuine}`)).resolves.toMatchObject({ role: 'user' });
    await expect(verify(`Bearer ${forged}`)).rejects.toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
  });

  test.each([
    ['an RSA public key PEM as a Buffer', Buffer.from(rsaPem), 'a PEM "PUBLIC KEY" block', 'RS256'],
    ['an RSA public key PEM as a string', rsaPem, 'a PEM "PUBLIC KEY" block', 'RS256'],
    ['an EC public key PEM as a Buffer', Buffer.from(ecPem), 'a PEM "PUBLIC KEY" block', 'ES256'],
    ['an EC public key PEM as a string', ecPem, 'a PEM "PUBLIC KEY" block', 'ES256'],
    ['a PEM after whitespace, in a Buffer', Buffer.from(`\n\t  ${ecPem}`), 'a PEM "PUBLIC KEY" block', 'ES256'],
    ['a PKCS#1 RSA PEM in a plain Uint8Array', new Uint8Array(Buffer.from(rsa.publicKey.export({ format: 'pem', type: 'pkcs1' }))), 'a PEM "RSA PUBLIC KEY" block', 'RS256'],
    ['an EC private key PEM as a Buffer', Buffer.from(ec.privateKey.export({ format: 'pem', type: 'sec1' })), 'a PEM "EC PRIVATE KEY" block', 'ES256'],
    ['a certificate PEM', certificate, 'a PEM "CERTIFICATE" block', 'ES256'],
    ['a DER SPKI RSA public key', rsaDer, 'a DER-encoded rsa public key (SPKI)', 'RS256'],
    ['a DER SPKI EC public key', ec.publicKey.export({ format: 'der', type: 'spki' }), 'a DER-encoded ec public key (SPKI)', 'ES256'],
    ['a DER PKCS#8 RSA private key', rsa.privateKey.export({ format: 'der', type: 'pkcs8' }), 'a DER-encoded rsa private key (PKCS#8)', 'RS256'],
    ['a DER PKCS#8 EC private key', ec.privateKey.export({ format: 'der', type: 'pkcs8' }), 'a DER-encoded ec private key (PKCS#8)', 'ES256'],
    ['a DER PKCS#1 RSA public key', rsa.publicKey.export({ format: 'der', type: 'pkcs1' }), 'a DER-encoded rsa public key (PKCS#1)', 'RS256'],
    ['a DER certificate', new X509Certificate(certificate).raw, 'a DER-encoded ec X.509 certificate', 'ES256'],
    ['the base64 body of a PEM, without its armour', rsaDer.toString('base64'), 'a base64 DER-encoded rsa public key (SPKI)', 'RS256'],
    ['an RSA JWK as JSON text', rsaJwk, 'a JWK (JSON with kty "RSA")', 'RS256'],
    ['an EC JWK as a Buffer', Buffer.from(ecJwk), 'a JWK (JSON with kty "EC")', 'ES256'],
    ['a JWK set as JSON text', JSON.stringify({ keys: [JSON.parse(rsaJwk)] }), 'a JWK set (JSON with "keys")', 'RS256'],
    ['a JWK set as a Buffer', Buffer.from(JSON.stringify({ keys: [JSON.parse(ecJwk)] })), 'a JWK set (JSON with "keys")', 'RS256'],
  ])('%s is refused with HS256', (_name, secret, found, suggested) => {
    const error = creationError({ issuer: ISSUER, secret });
    expect(error.path).toBe('$.secret');
    expect(error.problem).toBe(`the secret holds ${found}, which HS256 would use as an HMAC secret: anyone who has that key could sign tokens`);
    expect(error.fix).toContain(suggested);
  });

  test('every HMAC algorithm in the list counts, not only the default', () => {
    expect(creationError({ issuer: ISSUER, secret: Buffer.from(rsaPem), algorithms: ['HS384', 'HS512'] }).problem).toContain('which HS384, HS512 would use as an HMAC secret');
  });

  test('with asymmetric algorithms, DER and JWK secrets are refused with how to pass them', () => {
    for (const secret of [rsaDer, rsaJwk]) {
      const error = creationError({ issuer: ISSUER, secret, algorithms: ['RS256'] });
      expect(error.problem).toMatch(/^the secret holds a (DER-encoded rsa public key \(SPKI\)|JWK \(JSON with kty "RSA"\)), which is read only from PEM text$/);
      expect(error.fix).toContain('crypto.createPublicKey');
    }
  });

  test('KeyObjects: a public or private key with HS256 is refused, and so is a secret KeyObject made of a key file', () => {
    expect(creationError({ issuer: ISSUER, secret: rsa.publicKey }).problem).toBe('HS256 cannot be verified with a public key of type rsa');
    expect(creationError({ issuer: ISSUER, secret: ec.privateKey }).problem).toBe('secret is a private key');
    expect(creationError({ issuer: ISSUER, secret: createSecretKey(Buffer.from(rsaPem)) }).problem).toContain('the secret holds a PEM "PUBLIC KEY" block, which HS256 would use');
  });

  test('ordinary HMAC secrets still work: random bytes (even starting like DER), base64 text, a long passphrase', async () => {
    const bytes = randomBytes(32);
    bytes[0] = 0x30;
    const secrets: (Buffer | string)[] = [bytes, randomBytes(48).toString('base64'), 'correct horse battery staple, and then a few more words'];
    for (const secret of secrets) {
      const verify = bearerJwt({ issuer: ISSUER, secret });
      const signed = await hmacSigned({ sub: 'ok' }, typeof secret === 'string' ? new TextEncoder().encode(secret) : secret);
      await expect(verify(`Bearer ${signed}`)).resolves.toMatchObject({ sub: 'ok' });
    }
  });
});
