import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { exportJWK, SignJWT } from 'jose';
import { ISSUER, SECRET } from './tokens';

// The JWT pitfall list of SPEC 6, as Authorization headers. Every one must be answered 401.

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** Signs any header and raw payload text with HMAC-SHA256, to build tokens jose would refuse to make. */
export function hmacToken(header: Record<string, unknown>, payload: unknown, secret: string | Buffer = SECRET): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

const claims = (extra: Record<string, unknown> = {}) => ({ iss: ISSUER, exp: now() + 600, role: 'admin', ...extra });

export interface Pitfall {
  name: string;
  /** The Authorization header, or undefined to send none. */
  authorization: string | undefined;
  /** A query string to append, for the token-in-the-URL case. */
  query?: string;
}

/** Cases against a server that verifies HS256 with SECRET and issuer ISSUER. */
export async function hmacPitfalls(): Promise<Pitfall[]> {
  const valid = hmacToken({ alg: 'HS256', typ: 'JWT' }, claims());
  const [validHeader, validPayload, validSignature] = valid.split('.') as [string, string, string];
  const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const attackerJwk = await exportJWK(attacker.publicKey);
  const signedByAttacker = (header: Record<string, unknown>) => new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', ...header }).sign(attacker.privateKey);
  const bearer = (token: string) => `Bearer ${token}`;

  return [
    ...['none', 'None', 'NONE', 'nOnE'].map((alg) => ({ name: `alg ${alg}, no signature`, authorization: bearer(`${b64({ alg, typ: 'JWT' })}.${b64(claims())}.`) })),
    { name: 'alg none with a signature attached', authorization: bearer(`${b64({ alg: 'none' })}.${b64(claims())}.${validSignature}`) },
    { name: 'forged kid (path traversal) on a token signed with another secret', authorization: bearer(hmacToken({ alg: 'HS256', kid: '../../../../dev/null' }, claims(), 'another-secret-of-more-than-32-bytes')) },
    { name: 'forged jwk header carrying the attacker key', authorization: bearer(await signedByAttacker({ jwk: attackerJwk })) },
    { name: 'forged jku header pointing at the attacker', authorization: bearer(await signedByAttacker({ jku: 'http://127.0.0.1:9/jwks.json', kid: 'attacker' })) },
    { name: 'RS256 token against an HMAC key', authorization: bearer(await signedByAttacker({})) },
    { name: 'crit naming an unknown header parameter', authorization: bearer(hmacToken({ alg: 'HS256', crit: ['x-must-understand'], 'x-must-understand': true }, claims())) },
    { name: 'b64:false (unencoded payload)', authorization: bearer(hmacToken({ alg: 'HS256', b64: false, crit: ['b64'] }, claims())) },
    { name: 'expired exp (10 s ago, beyond the 5 s tolerance)', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ exp: now() - 10 }))) },
    { name: 'non-numeric exp', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ exp: 'tomorrow' }))) },
    { name: 'future nbf (10 s ahead, beyond the 5 s tolerance)', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ nbf: now() + 10 }))) },
    { name: 'non-numeric nbf', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ nbf: 'now' }))) },
    { name: 'wrong iss', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ iss: 'someone-else' }))) },
    { name: 'non-string iss', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ iss: 42 }))) },
    { name: 'missing iss', authorization: bearer(hmacToken({ alg: 'HS256' }, { exp: now() + 600, role: 'admin' })) },
    { name: 'payload is a JSON array', authorization: bearer(hmacToken({ alg: 'HS256' }, [claims()])) },
    { name: 'payload is a JSON string', authorization: bearer(hmacToken({ alg: 'HS256' }, '"admin"')) },
    { name: 'payload is not JSON', authorization: bearer(`${b64({ alg: 'HS256' })}.${b64('not json')}.${validSignature}`) },
    { name: 'two segments', authorization: bearer(`${validHeader}.${validPayload}`) },
    { name: 'four segments', authorization: bearer(`${valid}.${validSignature}`) },
    { name: 'bad base64url in the header', authorization: bearer(`${validHeader}*.${validPayload}.${validSignature}`) },
    { name: 'base64 padding and + / characters', authorization: bearer(`${validHeader}==.${validPayload.replace(/-/g, '+')}.${validSignature}`) },
    { name: 'signature of another token', authorization: bearer(`${validHeader}.${b64(claims({ role: 'root' }))}.${validSignature}`) },
    { name: 'signature cut short', authorization: bearer(valid.slice(0, -5)) },
    { name: 'Bearer with no token', authorization: 'Bearer' },
    { name: 'Bearer with only spaces', authorization: 'Bearer    ' },
    { name: 'Bearer with two tokens', authorization: `Bearer ${valid} ${valid}` },
    { name: 'Basic scheme', authorization: `Basic ${Buffer.from('admin:admin').toString('base64')}` },
    { name: 'Token scheme', authorization: `Token ${valid}` },
    { name: 'scheme glued to the token', authorization: `Bearer${valid}` },
    { name: 'Authorization header over 8 KiB', authorization: bearer(hmacToken({ alg: 'HS256' }, claims({ pad: 'x'.repeat(9000) }))) },
    { name: 'token only in the query string', authorization: undefined, query: `access_token=${valid}` },
    { name: 'no Authorization header', authorization: undefined },
  ];
}

/** Cases against a server that verifies RS256 with `publicKey`: algorithm confusion and key tricks. */
export async function rsaPitfalls(publicKey: KeyObject, publicPem: string): Promise<Pitfall[]> {
  const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const bearer = (token: string) => `Bearer ${token}`;
  return [
    { name: 'HS256 signed with the RSA public key PEM as the HMAC secret', authorization: bearer(hmacToken({ alg: 'HS256' }, claims(), publicPem)) },
    { name: 'HS256 signed with the DER public key as the HMAC secret', authorization: bearer(hmacToken({ alg: 'HS256' }, claims(), publicKey.export({ format: 'der', type: 'spki' }))) },
    { name: 'RS256 signed by another key', authorization: bearer(await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256' }).sign(attacker.privateKey)) },
    { name: 'RS256 with the attacker key embedded as jwk', authorization: bearer(await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', jwk: await exportJWK(attacker.publicKey) }).sign(attacker.privateKey)) },
    { name: 'RS256 with a kid naming nothing', authorization: bearer(await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'rotated-out' }).sign(attacker.privateKey)) },
    { name: 'PS256 (not in the allowed list) by another key', authorization: bearer(await new SignJWT(claims()).setProtectedHeader({ alg: 'PS256' }).sign(attacker.privateKey)) },
    { name: 'alg none', authorization: bearer(`${b64({ alg: 'none' })}.${b64(claims())}.`) },
  ];
}
