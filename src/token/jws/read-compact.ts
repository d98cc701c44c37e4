import { JwtCheckFailure } from './jwt-check-failure';

/** A protected header as decoded: any JSON value a JSON object held. */
export type JwsHeader = Readonly<Record<string, unknown>>;

/** A compact JWS split and its header read; nothing is verified yet. */
export interface CompactToken {
  header: JwsHeader;
  alg: string;
  /** `header.payload` as sent: what the signature is over. */
  signingInput: string;
  payloadPart: string;
  signaturePart: string;
  /** crit lists b64 and b64 is false: an unencoded payload, which a JWT must not use (RFC 7797, section 7). */
  unencodedPayload: boolean;
}

// jose decodes with a TextDecoder too: invalid UTF-8 becomes U+FFFD and a leading BOM is dropped.
const utf8 = new TextDecoder();

/**
 * Splits a compact JWS and reads its protected header as jose's compactVerify does, in the same
 * order and with the same codes: three parts, a header that is JSON, `crit` naming only `b64`
 * (with a boolean b64), a string `alg` among the allowed ones.
 */
export function readCompact(token: string, algorithms: ReadonlySet<string>): CompactToken {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second < 0 || token.indexOf('.', second + 1) >= 0) throw new JwtCheckFailure('ERR_JWS_INVALID', 'Invalid Compact JWS');
  const { header, unencodedPayload } = readProtectedHeader(token.slice(0, first));
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '') throw new JwtCheckFailure('ERR_JWS_INVALID', 'JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (!algorithms.has(alg)) throw new JwtCheckFailure('ERR_JOSE_ALG_NOT_ALLOWED', '"alg" (Algorithm) Header Parameter value not allowed');
  return { header, alg, signingInput: token.slice(0, second), payloadPart: token.slice(first + 1, second), signaturePart: token.slice(second + 1), unencodedPayload };
}

/** Node's base64url decoder, as jose's: it skips characters outside the alphabet and accepts padding. */
export function decodeJson(part: string): unknown {
  return JSON.parse(utf8.decode(Buffer.from(part, 'base64url')));
}

/** An issuer signs every token with one of a few headers: each is read once. */
const HEADERS_KEPT = 64;
/** Longer headers are read every time, so that no large text is kept. */
const LONGEST_KEPT = 512;
const readHeaders = new Map<string, { header: JwsHeader; unencodedPayload: boolean }>();

function readProtectedHeader(part: string): { header: JwsHeader; unencodedPayload: boolean } {
  const known = readHeaders.get(part);
  if (known !== undefined) return known;
  const header = part === '' ? {} : readHeader(part);
  const read = { header: Object.freeze(header), unencodedPayload: readCrit(header) };
  if (part.length <= LONGEST_KEPT) {
    // Many distinct headers (a client making them up) only cost what reading them costs anyway.
    if (readHeaders.size >= HEADERS_KEPT) readHeaders.clear();
    readHeaders.set(part, read);
  }
  return read;
}

/**
 * A header that is JSON but not an object (a number, an array, null) is read as jose reads it,
 * spread into an object: it never has a string `alg`, so it is refused there.
 */
function readHeader(part: string): JwsHeader {
  let value: unknown;
  try {
    value = decodeJson(part);
  } catch {
    throw new JwtCheckFailure('ERR_JWS_INVALID', 'JWS Protected Header is invalid');
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JwsHeader) : {};
}

/** RFC 7515, section 4.1.11: an extension the verifier does not understand refuses the token. Only b64 (RFC 7797) is known. */
function readCrit(header: JwsHeader): boolean {
  const { crit } = header;
  if (crit === undefined) return false;
  if (!Array.isArray(crit) || crit.length === 0 || crit.some((name) => typeof name !== 'string' || name.length === 0)) {
    throw new JwtCheckFailure('ERR_JWS_INVALID', '"crit" (Critical) Header Parameter MUST be an array of non-empty strings when present');
  }
  for (const name of crit as string[]) {
    if (name !== 'b64') throw new JwtCheckFailure('ERR_JOSE_NOT_SUPPORTED', `Extension Header Parameter "${name}" is not recognized`);
    if (header.b64 === undefined) throw new JwtCheckFailure('ERR_JWS_INVALID', `Extension Header Parameter "${name}" is missing`);
  }
  if (typeof header.b64 !== 'boolean') throw new JwtCheckFailure('ERR_JWS_INVALID', 'The "b64" (base64url-encode payload) Header Parameter must be a boolean');
  return header.b64 === false;
}
