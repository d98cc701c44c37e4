import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import express from 'express';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, JsonWebTokenError } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';

// Every algorithm jose 5.10 verifies, with real keys and tokens, and the key-type and curve checks.
const ISSUER = 'algorithms-tests';
const AUDIENCE = 'https://api.example.com';
const EXAMPLE = join(__dirname, '../../examples/users-api');
const now = () => Math.floor(Date.now() / 1000);

interface Signer {
  alg: string;
  /** What the configuration is given: the public key, or the HMAC secret. */
  verifyWith: KeyObject | Buffer;
  signWith: KeyObject | Uint8Array;
}

/** The algorithm's name, and for EdDSA the curve: EdDSA covers Ed25519 and Ed448 keys. */
const CASES: [string, string, { crv?: string }][] = [
  ['HS256', 'HS256', {}],
  ['HS384', 'HS384', {}],
  ['HS512', 'HS512', {}],
  ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'ES256K', 'Ed25519'].map((alg): [string, string, { crv?: string }] => [alg, alg, {}]),
  ['EdDSA with an Ed25519 key', 'EdDSA', { crv: 'Ed25519' }],
  ['EdDSA with an Ed448 key', 'EdDSA', { crv: 'Ed448' }],
];

async function signer(alg: string, options: { crv?: string }): Promise<Signer> {
  if (alg.startsWith('HS')) {
    const secret = randomBytes(64);
    return { alg, verifyWith: secret, signWith: new Uint8Array(secret) };
  }
  const { publicKey, privateKey } = await generateKeyPair(alg, options);
  return { alg, verifyWith: publicKey as KeyObject, signWith: privateKey as KeyObject };
}

function sign({ alg, signWith }: Signer, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ iss: ISSUER, aud: AUDIENCE, exp: now() + 600, ...claims }).setProtectedHeader({ alg, ...header }).sign(signWith);
}

describe.each(CASES)('%s', (_name, alg, options) => {
  let key: Signer;
  beforeAll(async () => {
    key = await signer(alg, options);
  });

  test('bearerJwt verifies a token signed with it', async () => {
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key.verifyWith, algorithms: [alg] });
    await expect(verify(`Bearer ${await sign(key, { sub: 'u1' })}`)).resolves.toMatchObject({ sub: 'u1', iss: ISSUER });
  });

  test('bearerJwt refuses a token signed with another key of the same kind', async () => {
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key.verifyWith, algorithms: [alg] });
    const other = await signer(alg, options);
    await expect(verify(`Bearer ${await sign(other)}`)).rejects.toMatchObject({ name: 'JsonWebTokenError', code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED', description: 'the signature does not verify' });
  });

  test('bearerJwtAcl on real Express lets the token in and keeps a forged one out', async () => {
    const app = express();
    app.use(bearerJwtAcl({ openapi: join(EXAMPLE, 'openapi.yaml'), acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') }, handler: bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key.verifyWith, algorithms: [alg] }) }));
    app.get(/.*/, (_req, res) => {
      res.json({ ran: true });
    });
    const { url, close } = await listen(app as unknown as RequestListener);
    try {
      const owner = await request(url).get('/api/v1/users/1').set('Authorization', `Bearer ${await sign(key, { role: 'user', userId: [1] })}`);
      expect(owner.status).toBe(200);
      expect(owner.body).toEqual({ ran: true });
      const forged = await request(url).get('/api/v1/users/1').set('Authorization', `Bearer ${await sign(await signer(alg, options), { role: 'user', userId: [1] })}`);
      expect(forged.status).toBe(401);
      expect(forged.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the signature does not verify"');
    } finally {
      await close();
    }
  });
});

describe('the key decides the algorithms, by type and curve', () => {
  const publicOf = (type: 'ec' | 'ed25519' | 'ed448' | 'x25519' | 'rsa' | 'rsa-pss', options: Record<string, unknown> = {}) =>
    (generateKeyPairSync as (type: string, options: Record<string, unknown>) => { publicKey: KeyObject })(type, options).publicKey;
  const p256 = publicOf('ec', { namedCurve: 'P-256' });
  const p384 = publicOf('ec', { namedCurve: 'P-384' });
  const secp256k1 = publicOf('ec', { namedCurve: 'secp256k1' });
  const ed25519 = publicOf('ed25519');
  const ed448 = publicOf('ed448');
  const rsaPss = publicOf('rsa-pss', { modulusLength: 2048 });

  test.each([
    ['ES384 with a P-256 key', p256, 'ES384', 'ES384 cannot be verified with a public key of type ec, curve P-256'],
    ['ES256 with a P-384 key', p384, 'ES256', 'ES256 cannot be verified with a public key of type ec, curve P-384'],
    ['ES256 with a secp256k1 key', secp256k1, 'ES256', 'ES256 cannot be verified with a public key of type ec, curve secp256k1'],
    ['ES256K with a P-256 key', p256, 'ES256K', 'ES256K cannot be verified with a public key of type ec, curve P-256'],
    ['Ed25519 with an Ed448 key', ed448, 'Ed25519', 'Ed25519 cannot be verified with a public key of type ed448'],
    ['ES256 with an Ed25519 key', ed25519, 'ES256', 'ES256 cannot be verified with a public key of type ed25519'],
    ['RS256 with an RSA-PSS key', rsaPss, 'RS256', 'RS256 cannot be verified with a public key of type rsa-pss'],
  ])('%s is a ConfigError', (_name, key, alg, message) => {
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key, algorithms: [alg] })).toThrow(ConfigError);
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key, algorithms: [alg] })).toThrow(message);
  });

  test.each([
    ['an Ed25519 key verifies EdDSA and Ed25519', ed25519, ['EdDSA', 'Ed25519']],
    ['an Ed448 key verifies EdDSA', ed448, ['EdDSA']],
    ['a secp256k1 key verifies ES256K', secp256k1, ['ES256K']],
    ['an RSA-PSS key verifies PS256', rsaPss, ['PS256', 'PS384', 'PS512']],
  ])('%s', (_name, key, algorithms) => {
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key, algorithms })).not.toThrow();
  });

  test('an X25519 key is refused: it signs nothing', () => {
    const x25519 = publicOf('x25519');
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: x25519, algorithms: ['EdDSA'] })).toThrow('EdDSA cannot be verified with a public key of type x25519');
  });

  test('a PEM public key of a curve is checked the same way', () => {
    const pem = p256.export({ type: 'spki', format: 'pem' }) as string;
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: pem, algorithms: ['ES512'] })).toThrow('ES512 cannot be verified with a public key of type ec, curve P-256');
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: pem, algorithms: ['ES256'] })).not.toThrow();
  });

  test('an unknown algorithm name is a ConfigError listing the accepted ones, Ed25519 and ES256K among them', () => {
    expect(() => bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: ed25519, algorithms: ['Ed449'] })).toThrow(/unknown algorithm "Ed449".*ES256K.*Ed25519/);
  });
});

describe('a token whose algorithm is not among the configured ones is refused', () => {
  test('an Ed25519 token when only RS256 is allowed', async () => {
    const rsa = await generateKeyPair('RS256');
    const ed = await generateKeyPair('Ed25519');
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: rsa.publicKey as KeyObject, algorithms: ['RS256'] });
    const error = await verify(`Bearer ${await sign({ alg: 'Ed25519', verifyWith: ed.publicKey as KeyObject, signWith: ed.privateKey as KeyObject })}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(JsonWebTokenError);
    expect(error).toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED', description: "the token's algorithm is not accepted" });
  });

  test('an EdDSA token against a key configured for Ed25519 only, though the key signed it', async () => {
    const ed = await generateKeyPair('Ed25519');
    const key: Signer = { alg: 'EdDSA', verifyWith: ed.publicKey as KeyObject, signWith: ed.privateKey as KeyObject };
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: key.verifyWith, algorithms: ['Ed25519'] });
    await expect(verify(`Bearer ${await sign(key)}`)).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
    await expect(verify(`Bearer ${await sign({ ...key, alg: 'Ed25519' })}`)).resolves.toMatchObject({ iss: ISSUER });
  });

  test('an HS256 token made with the public key as the secret (algorithm confusion)', async () => {
    const ed = await generateKeyPair('Ed25519');
    const publicKey = ed.publicKey as KeyObject;
    const verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, secret: publicKey, algorithms: ['EdDSA', 'Ed25519'] });
    const confused = await sign({ alg: 'HS256', verifyWith: publicKey, signWith: new Uint8Array(publicKey.export({ type: 'spki', format: 'der' })) });
    await expect(verify(`Bearer ${confused}`)).rejects.toMatchObject({ code: 'ERR_JOSE_ALG_NOT_ALLOWED' });
  });
});

describe('a local JWK set holding an Ed25519 and a secp256k1 key', () => {
  let ed: Signer;
  let k1: Signer;
  let verify: ReturnType<typeof bearerJwt>;
  beforeAll(async () => {
    const edPair = await generateKeyPair('Ed25519');
    const k1Pair = await generateKeyPair('ES256K');
    ed = { alg: 'Ed25519', verifyWith: edPair.publicKey as KeyObject, signWith: edPair.privateKey as KeyObject };
    k1 = { alg: 'ES256K', verifyWith: k1Pair.publicKey as KeyObject, signWith: k1Pair.privateKey as KeyObject };
    const keys = [
      { ...(await exportJWK(ed.verifyWith as KeyObject)), kid: 'ed' },
      { ...(await exportJWK(k1.verifyWith as KeyObject)), kid: 'k1' },
    ];
    verify = bearerJwt({ issuer: ISSUER, audience: AUDIENCE, jwks: { keys }, algorithms: ['Ed25519', 'EdDSA', 'ES256K', 'ES256'] });
  });

  test.each([
    ['Ed25519, kid ed', () => sign(ed, { sub: 'a' }, { kid: 'ed' })],
    ['EdDSA, kid ed', () => sign({ ...ed, alg: 'EdDSA' }, { sub: 'a' }, { kid: 'ed' })],
    ['Ed25519, no kid', () => sign(ed, { sub: 'a' })],
    ['ES256K, kid k1', () => sign(k1, { sub: 'a' }, { kid: 'k1' })],
    ['ES256K, no kid', () => sign(k1, { sub: 'a' })],
  ])('verifies %s', async (_name, make) => {
    await expect(verify(`Bearer ${await make()}`)).resolves.toMatchObject({ sub: 'a' });
  });

  test('refuses an ES256 token: no key of the set is on P-256', async () => {
    const p256 = await generateKeyPair('ES256');
    const token = await sign({ alg: 'ES256', verifyWith: p256.publicKey as KeyObject, signWith: p256.privateKey as KeyObject });
    await expect(verify(`Bearer ${token}`)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY', description: 'no key of the key set matches the token' });
  });

  test('refuses an ES256K token signed by another secp256k1 key under the set kid', async () => {
    const other = await generateKeyPair('ES256K');
    const token = await sign({ alg: 'ES256K', verifyWith: other.publicKey as KeyObject, signWith: other.privateKey as KeyObject }, {}, { kid: 'k1' });
    await expect(verify(`Bearer ${token}`)).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  test('refuses the Ed25519 key used under the secp256k1 kid', async () => {
    await expect(verify(`Bearer ${await sign(ed, {}, { kid: 'k1' })}`)).rejects.toMatchObject({ code: 'ERR_JWKS_NO_MATCHING_KEY' });
  });
});
