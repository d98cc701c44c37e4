// What checking one token costs, per algorithm, in this process, each the median of 1,000 distinct
// tokens: the signature alone (node:crypto over the token's signing input, with a KeyObject made
// once), the whole token by hand with node:crypto (the signature, then the payload decoded and its
// exp, iss and aud checked: what any verifier must do, and the target's base), jose's whole jwtVerify (decoding, signature, claims; its waits included), and svcgate's
// own verification through its public API (bearerJwt with its cache off, its handler given the
// Authorization header). `node bench/signatures.mjs` prints the table alone.
import { constants, createHmac, createSecretKey, verify } from 'node:crypto';
import { createRequire } from 'node:module';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import { JWT } from './tokens.mjs';

const require = createRequire(import.meta.url);
const { bearerJwt } = require('svcgate/auth');

/** Per-token verification within this many times raw node:crypto (issue 31). */
const TARGET = 1.3;

/** How node:crypto's verify checks each asymmetric algorithm: its digest and key options. */
const NODE_VERIFY = {
  RS256: { digest: 'sha256' },
  PS256: { digest: 'sha256', padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
  ES256: { digest: 'sha256', dsaEncoding: 'ieee-p1363' },
  ES384: { digest: 'sha384', dsaEncoding: 'ieee-p1363' },
  EdDSA: { digest: null },
};
export const SIGNATURE_ALGORITHMS = ['HS256', ...Object.keys(NODE_VERIFY)];

export async function signatureCosts() {
  const rows = [];
  for (const alg of SIGNATURE_ALGORITHMS) {
    const secret = alg === 'HS256' ? createSecretKey(Buffer.from(JWT.secret)) : undefined;
    const keys = secret ? { privateKey: secret, publicKey: secret } : await generateKeyPair(alg, { crv: alg === 'EdDSA' ? 'Ed25519' : undefined });
    const tokens = [];
    for (let i = 0; i < 1000; i++) tokens.push(await new SignJWT({ sub: `s${i}`, role: 'user' }).setProtectedHeader({ alg, kid: alg }).setIssuer(JWT.issuer).setAudience(JWT.audience).setExpirationTime('2h').sign(keys.privateKey));
    const signatureOnly = secret ? hmacByHand(secret) : signatureByHand(alg, keys.publicKey);
    const wholeToken = (token) => jwtVerify(token, keys.publicKey, { issuer: JWT.issuer, audience: JWT.audience, algorithms: [alg] });
    const keyOption = secret ? { secret: JWT.secret } : { jwks: { keys: [{ ...(await exportJWK(keys.publicKey)), kid: alg, alg, use: 'sig' }] } };
    const handler = bearerJwt({ ...keyOption, algorithms: [alg], issuer: JWT.issuer, audience: JWT.audience, cache: false });
    await handler.ready();
    const svcgate = (token) => handler(`Bearer ${token}`);
    rows.push({ alg, signatureUs: await medianUs(tokens, signatureOnly), byHandUs: await medianUs(tokens, tokenByHand(signatureOnly)), jwtVerifyUs: await medianUs(tokens, wholeToken), svcgateUs: await medianUs(tokens, svcgate) });
  }
  return rows;
}

/** The token's signing input and its decoded signature, as any verifier must take them apart. */
function signedParts(token) {
  const end = token.lastIndexOf('.');
  return [token.slice(0, end), Buffer.from(token.slice(end + 1), 'base64url')];
}

/** The signature, then the claims any verifier reads: the payload decoded, exp, iss and aud checked. */
function tokenByHand(signatureValid) {
  return (token) => {
    if (!signatureValid(token)) return false;
    const claims = JSON.parse(Buffer.from(token.slice(token.indexOf('.') + 1, token.lastIndexOf('.')), 'base64url').toString());
    return typeof claims.exp === 'number' && claims.exp > Date.now() / 1000 && claims.iss === JWT.issuer && claims.aud === JWT.audience;
  };
}

function hmacByHand(key) {
  return (token) => {
    const [input, signature] = signedParts(token);
    return createHmac('sha256', key).update(input).digest().equals(signature);
  };
}

function signatureByHand(alg, key) {
  const { digest, ...options } = NODE_VERIFY[alg];
  const keyInput = Object.keys(options).length === 0 ? key : { key, ...options };
  return (token) => {
    const [input, signature] = signedParts(token);
    return verify(digest, Buffer.from(input), keyInput, signature);
  };
}

/** A check that answers at once is timed without a wait; one that returns a promise, with it. */
async function medianUs(tokens, check) {
  const once = async (token) => {
    const t0 = process.hrtime.bigint();
    let result = check(token);
    if (typeof result?.then === 'function') result = await result;
    const us = Number(process.hrtime.bigint() - t0) / 1000;
    if (!result) throw new Error('a token did not verify');
    return us;
  };
  for (const token of tokens) await once(token);
  const samples = [];
  for (let round = 0; round < 3; round++) for (const token of tokens) samples.push(await once(token));
  samples.sort((a, b) => a - b);
  return samples[samples.length >> 1];
}

/** The table of results.md, with the target of issue 31 per algorithm. */
export function signatureLines(rows) {
  const fmt = (n, digits) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  return [
    "Checking one token, per algorithm (bench/signatures.mjs), median of 1,000 distinct tokens in one process, 3 rounds after a warm-up: the signature alone with node:crypto and a KeyObject made once; the whole token by hand with node:crypto (that signature, then the payload decoded and exp, iss and aud checked: the floor of any verifier, and the target's base); jose's jwtVerify (signature, decoding and claims; its waits included), and svcgate's own, through its public API: `bearerJwt({ secret | jwks, algorithms: [alg], issuer, audience, cache: false })`, its handler given `'Bearer ' + token` (awaited only when it returns a promise). Keys: RSA 2048, P-256, P-384, Ed25519.",
    '',
    '| algorithm | node:crypto, signature alone | node:crypto, whole token by hand | jose jwtVerify | svcgate bearerJwt | svcgate / by hand | svcgate / signature alone | target (of by hand) |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((row) => {
      const ratio = row.svcgateUs / row.byHandUs;
      return `| ${row.alg} | ${fmt(row.signatureUs, 1)} us | ${fmt(row.byHandUs, 1)} us | ${fmt(row.jwtVerifyUs, 1)} us | ${fmt(row.svcgateUs, 1)} us | ${fmt(ratio, 2)} | ${fmt(row.svcgateUs / row.signatureUs, 2)} | <= ${TARGET} ${ratio <= TARGET ? 'met' : 'MISSED'} |`;
    }),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(signatureLines(await signatureCosts()).join('\n'));
