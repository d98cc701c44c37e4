import { forgeToken, type Member, type SignatureTwist } from './forge-token';
import { ALL_ALGORITHMS, HMAC_SECRET, OTHER_HMAC_SECRET, publicJwk, signAs, type KeyPair, type SigningMaterial } from './signing-keys';

/**
 * Tokens for the key side of the differential test: every algorithm signed by every key that can
 * make a signature of that name (the right one, and the misfits a forger would try), and `kid`
 * tricks against local JWK sets. Asymmetric signing costs up to milliseconds, so each token is
 * signed once, valid for an hour, and reused against every scenario.
 */

export interface FixedToken {
  name: string;
  token: string;
}

/** What may sign: each private key, the HMAC secrets, and public keys written as HMAC secrets (algorithm confusion). */
export function signers(keys: Record<string, KeyPair>): [string, SigningMaterial][] {
  const rsaPem = Buffer.from(keys.rsa2048!.publicKey.export({ format: 'pem', type: 'spki' }) as string);
  const rsaDer = keys.rsa2048!.publicKey.export({ format: 'der', type: 'spki' });
  const ecPem = Buffer.from(keys.p256!.publicKey.export({ format: 'pem', type: 'spki' }) as string);
  const rsaJwk = Buffer.from(JSON.stringify(publicJwk(keys.rsa2048!)));
  return [
    ...Object.values(keys).map((pair): [string, SigningMaterial] => [pair.name, pair.privateKey]),
    ['hmac secret', Buffer.from(HMAC_SECRET)],
    ['another hmac secret', Buffer.from(OTHER_HMAC_SECRET)],
    ['rsa2048 public PEM as an HMAC secret', rsaPem],
    ['rsa2048 public DER as an HMAC secret', rsaDer],
    ['rsa2048 public JWK text as an HMAC secret', rsaJwk],
    ['p256 public PEM as an HMAC secret', ecPem],
  ];
}

/** The signature twists that reach the crypto: cut, stretched, a byte flipped, padded, unused bits set. */
const MATRIX_TWISTS: readonly SignatureTwist[] = ['intact', 'flip-char', 'drop-last-byte', 'prepend-zero-byte', 'append-byte', 'trailing-bits', 'padded', 'empty'];

/**
 * For every algorithm, a token signed by every signer node:crypto can make that signature with
 * (ES256 by a P-384 key, EdDSA by Ed448, PS256 by an RSA-PSS key with other parameters...), and
 * each of those with its signature twisted. The header's kid names the signer.
 */
export function keyAlgorithmTokens(keys: Record<string, KeyPair>, claims: readonly Member[], now: number): FixedToken[] {
  const tokens: FixedToken[] = [];
  for (const algorithm of ALL_ALGORITHMS) {
    for (const [name, key] of signers(keys)) {
      const header: Member[] = [['alg', JSON.stringify(algorithm)], ['kid', JSON.stringify(name)]];
      const probe = forgeToken({ header: { json: header }, payload: { json: claims }, signer: { algorithm, key } }, now);
      if (probe.endsWith('.')) continue; // node:crypto cannot sign this pair
      for (const twist of MATRIX_TWISTS) {
        const token = twist === 'intact' ? probe : forgeToken({ header: { json: header, at: 0.5 }, payload: { json: claims }, signer: { algorithm, key }, signature: twist }, now);
        tokens.push({ name: `${algorithm} signed by ${name}${twist === 'intact' ? '' : `, signature ${twist}`}`, token });
      }
    }
  }
  return tokens;
}

/** Keys Node can write as JWKs (not RSA-PSS), each with its name as kid. */
export function keySetOfAll(keys: Record<string, KeyPair>, withKid: boolean): { keys: Record<string, unknown>[] } {
  return { keys: Object.values(keys).filter((pair) => !pair.name.startsWith('rsa-pss')).map((pair) => publicJwk(pair, withKid ? { kid: pair.name } : {})) };
}

/** JWKs that jose's local set must skip, refuse, or find twice; kid -> the key pair that signs tokens for it. */
export function trickyKeySet(keys: Record<string, KeyPair>): { set: { keys: Record<string, unknown>[] }; signerOf: Map<unknown, KeyPair> } {
  const rsa = keys.rsa2048!;
  const jwks: Record<string, unknown>[] = [
    publicJwk(rsa, { kid: 'alg-rs384', alg: 'RS384' }),
    publicJwk(rsa, { kid: 'use-enc', use: 'enc' }),
    publicJwk(rsa, { kid: 'use-sig', use: 'sig' }),
    publicJwk(rsa, { kid: 'ops-sign', key_ops: ['sign'] }),
    publicJwk(rsa, { kid: 'ops-verify', key_ops: ['verify'] }),
    publicJwk(rsa, { kid: 'ops-string', key_ops: 'verify' }),
    publicJwk(rsa, { kid: 'alg-none', alg: 'none' }),
    // A private JWK: jose's set refuses to verify with it (JSON Web Key Set members must be public keys).
    { ...rsa.privateKey.export({ format: 'jwk' }), kid: 'private' },
    publicJwk(rsa, { kid: 'empty-d', d: '' }),
    publicJwk(rsa, { kid: 'oth', oth: [] }),
    publicJwk(rsa, { kid: 'bad-n', n: 'AQAB' }),
    publicJwk(keys.rsa1024!, { kid: 'short' }),
    publicJwk(keys.p256!, { kid: '__proto__' }),
    publicJwk(keys['p256-other']!, { kid: 5 }),
    publicJwk(keys.p256!, { kid: 'dup' }),
    publicJwk(keys['p256-other']!, { kid: 'dup' }),
    publicJwk(keys.p384!, { kid: 'p384-says-p256', crv: 'P-256' }),
    publicJwk(keys.ed25519!, { kid: 'ed25519-says-ed448', crv: 'Ed448' }),
    publicJwk(keys.ed448!, { kid: 'ed448' }),
    publicJwk(keys.secp256k1!, { kid: 'secp256k1', alg: 'ES256K' }),
    { kty: 'oct', k: Buffer.from(HMAC_SECRET).toString('base64url'), kid: 'oct' },
    { ...keys.ed25519!.publicKey.export({ format: 'jwk' }), crv: 'X25519', kid: 'x25519' },
    { kty: 'RSA', kid: 'no-n' },
    { kty: 'EC', crv: 'P-256', kid: 'no-xy' },
  ];
  const signerOf = new Map<unknown, KeyPair>([
    ['short', keys.rsa1024!],
    [5, keys['p256-other']!],
    ['p384-says-p256', keys.p384!],
    ['ed448', keys.ed448!],
    ['secp256k1', keys.secp256k1!],
  ]);
  return { set: { keys: jwks }, signerOf };
}

/** The kid values a token may carry (as JSON text), beyond the set's own. */
export const ODD_KIDS = [undefined, '"unknown"', '""', '5', '5.0', 'null', 'true', '["private"]', '{"kid":"dup"}', '"constructor"', '"toString"', '"hasOwnProperty"', '"__proto__"', '"DUP"', '" dup"'];

/** Algorithms a local JWK set verifies, and the key that signs each when the kid names none. */
export function defaultSigner(keys: Record<string, KeyPair>, algorithm: string): KeyPair {
  if (algorithm.startsWith('RS') || algorithm.startsWith('PS')) return keys.rsa2048!;
  if (algorithm === 'ES256') return keys.p256!;
  if (algorithm === 'ES384') return keys.p384!;
  if (algorithm === 'ES512') return keys.p521!;
  if (algorithm === 'ES256K') return keys.secp256k1!;
  return keys.ed25519!;
}

/**
 * For every kid (as JSON text, undefined for none) and algorithm, a token signed by the kid's key
 * (`signerOf`, else the key of that name, else the algorithm's default signer), intact and with a
 * flipped signature character.
 */
export function kidTrickTokens(keys: Record<string, KeyPair>, kids: readonly (string | undefined)[], algorithms: readonly string[], signerOf: ReadonlyMap<unknown, KeyPair>, claims: readonly Member[], now: number): FixedToken[] {
  const tokens: FixedToken[] = [];
  for (const kid of kids) {
    const named = kid === undefined ? undefined : (JSON.parse(kid) as unknown);
    // Own names only: a kid such as "__proto__" or "constructor" names no key here, so the algorithm's default key signs.
    const signer = signerOf.get(named) ?? (typeof named === 'string' && Object.hasOwn(keys, named) ? keys[named] : undefined);
    for (const algorithm of algorithms) {
      const key = (signer ?? defaultSigner(keys, algorithm)).privateKey;
      const header: Member[] = [['alg', JSON.stringify(algorithm)], ...(kid === undefined ? [] : [['kid', kid] as Member])];
      for (const signature of ['intact', 'flip-char'] as const) {
        tokens.push({ name: `kid ${kid ?? 'absent'}, ${algorithm}, signature ${signature}`, token: forgeToken({ header: { json: header }, payload: { json: claims }, signer: { algorithm, key }, signature }, now) });
      }
    }
  }
  return tokens;
}

/**
 * JWKs with members of the wrong type or value, as a provider may publish them, each under its
 * own kid (the kid says what is odd): for fetched sets, whose members svcgate filters before the
 * import. Where the member is the kid itself, `signerOf` names the key that signs for it.
 */
export function oddMemberJwks(keys: Record<string, KeyPair>): { jwks: Record<string, unknown>[]; signerOf: Map<unknown, KeyPair> } {
  const rsa = keys.rsa2048!;
  const p256 = keys.p256!;
  const ed25519 = keys.ed25519!;
  const privateRsa = rsa.privateKey.export({ format: 'jwk' });
  const privateP256 = p256.privateKey.export({ format: 'jwk' });
  const jwks: Record<string, unknown>[] = [
    ...[null, ['rsa-kid-list'], { id: 1 }, 0, true].map((kid) => publicJwk(rsa, { kid })),
    ...[256, null, ['RS256'], { RS256: true }, 'rs256', 'PS256', ''].map((alg) => publicJwk(rsa, { kid: `alg ${JSON.stringify(alg)}`, alg })),
    ...[5, null, 'SIG', ['sig'], '', 'enc '].map((use) => publicJwk(rsa, { kid: `use ${JSON.stringify(use)}`, use })),
    ...[5, null, ['P-256'], 'p-256', 'P-384'].map((crv) => publicJwk(p256, { kid: `p256 crv ${JSON.stringify(crv)}`, crv })),
    ...[5, null, ['Ed25519'], 'ed25519'].map((crv) => publicJwk(ed25519, { kid: `ed25519 crv ${JSON.stringify(crv)}`, crv })),
    publicJwk(rsa, { kid: 'rsa crv "P-256"', crv: 'P-256' }),
    ...[[5], ['verify', 5], [null, 'verify'], [], ['sign', 'encrypt'], ['VERIFY'], [['verify']], { 0: 'verify' }, null, ['verify', 'verify']].map((ops) => publicJwk(rsa, { kid: `key_ops ${JSON.stringify(ops)}`, key_ops: ops })),
    ...['AAAA', 5, 0, false, true, null, [], {}, ' '].map((d) => publicJwk(rsa, { kid: `rsa d ${JSON.stringify(d)}`, d })),
    ...['', 0, null].map((d) => publicJwk(p256, { kid: `p256 d ${JSON.stringify(d)}`, d })),
    { ...privateP256, kid: 'p256 private' },
    { ...privateRsa, d: '', kid: 'rsa private, d empty' },
    { ...privateRsa, d: undefined, kid: 'rsa private members without d' },
    ...[[], null, 0, false, [{ r: 'AQAB', d: 'AQAB', t: 'AQAB' }]].map((oth) => publicJwk(rsa, { kid: `rsa oth ${JSON.stringify(oth)}`, oth })),
    publicJwk(rsa, { kid: 'x5c and x5t', x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'], x5t: 'AAAA', 'x5t#S256': 5, x5u: 'http://127.0.0.1:1/x' }),
    publicJwk(rsa, { kid: 'extra members', k: 'AAAA', ext: false, iat: 5, nested: { keys: [] }, __proto__note: 'x' }),
    publicJwk(p256, { kid: 'p256 with n and e', n: rsa.publicKey.export({ format: 'jwk' }).n, e: 'AQAB' }),
    ...['EC2', 'rsa', 5, null, 'oct ', ''].map((kty) => publicJwk(rsa, { kid: `kty ${JSON.stringify(kty)}`, kty })),
    { kty: 'oct', k: Buffer.from(HMAC_SECRET).toString('base64url'), kid: 'oct with alg HS256', alg: 'HS256' },
    { kty: 'oct', k: '', kid: 'oct empty' },
    publicJwk(rsa, { kid: 'rsa e 65537', e: 65_537 }),
    publicJwk(rsa, { kid: 'rsa n number', n: 5 }),
    publicJwk(p256, { kid: 'p256 x short', x: 'AAAA' }),
    publicJwk(ed25519, { kid: 'ed25519 x short', x: 'AA' }),
    publicJwk(ed25519, { kid: 'ed25519 with y', y: 'AAAA' }),
    publicJwk(keys.p521!, { kid: 'p521' }),
    publicJwk(keys['rsa2048-other']!, { kid: 'rsa2048-other' }),
    publicJwk(rsa, { kid: 'rsa twice' }),
    publicJwk(rsa, { kid: 'rsa twice' }),
    publicJwk(rsa, { kid: 'rsa and p256 share a kid' }),
    publicJwk(p256, { kid: 'rsa and p256 share a kid' }),
  ];
  const signerOf = new Map<unknown, KeyPair>(jwks.flatMap((jwk): [unknown, KeyPair][] => (typeof jwk.kid === 'string' && jwk.kid.startsWith('p256') ? [[jwk.kid, p256]] : typeof jwk.kid === 'string' && jwk.kid.startsWith('ed25519') ? [[jwk.kid, ed25519]] : [])));
  return { jwks, signerOf };
}
