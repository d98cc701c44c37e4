import { signAs, type SigningMaterial } from './signing-keys';

/**
 * Compact JWS text built member by member, byte by byte and character by character, so a
 * recipe can hold what no JWT library writes: repeated members, `__proto__`, invalid UTF-8, a
 * byte-order mark, base64url that is not canonical, a signature cut or stretched.
 */

/** A member's value as JSON text, or a time `sinceNow` seconds from the moment the token is made. */
export type ValueText = string | { sinceNow: number };
export type Member = readonly [name: string, value: ValueText];

/** How a part's bytes are twisted before encoding. */
export type ByteTwist =
  | 'none'
  | 'bom' // U+FEFF first: jose's TextDecoder drops it
  | 'whitespace' // JSON whitespace around the object
  | 'invalid-utf8' // 0xFF inside the first string value
  | 'overlong-utf8' // C0 80 (an overlong NUL) inside the first string value
  | 'surrogate-utf8' // ED A0 80 (a UTF-16 surrogate encoded as UTF-8)
  | 'truncated-utf8' // E2 82, the start of a 3-byte sequence, then the closing quote
  | 'nul'; // a raw NUL byte inside the first string value (JSON refuses control characters)

export const BYTE_TWISTS_ALL: readonly Exclude<ByteTwist, 'none'>[] = ['bom', 'whitespace', 'invalid-utf8', 'overlong-utf8', 'surrogate-utf8', 'truncated-utf8', 'nul'];

/**
 * How a part's base64url text is written. Node's base64url decoder, which jose uses, skips
 * characters outside the alphabet, reads + and / as - and _, stops at =, and ignores unused bits
 * and a dangling last character; svcgate's header reader refuses some of these characters first.
 */
export type PartEncoding =
  | 'canonical'
  | 'padded' // '=' padding
  | 'standard-alphabet' // + and / instead of - and _
  | 'trailing-bits' // unused low bits of the last character set
  | 'dangling-char' // one character more
  | 'tilde' // '~' inserted: allowed by the header reader, skipped by Node
  | 'star' // '*' inserted: outside the alphabet and the header's token68
  | 'space' // ' ' inserted
  | 'dot' // '.' inserted: one part more
  | 'equals-inside' // '=' inserted in the middle
  | 'empty'; // no text at all

export const PART_ENCODINGS: readonly PartEncoding[] = ['canonical', 'padded', 'standard-alphabet', 'trailing-bits', 'dangling-char', 'tilde', 'star', 'space', 'dot', 'equals-inside', 'empty'];

/** What happens to a signature's text after signing. */
export type SignatureTwist =
  | 'intact'
  | 'flip-char' // one character replaced
  | 'drop-last-byte'
  | 'drop-first-byte'
  | 'append-byte'
  | 'prepend-zero-byte'
  | 'empty'
  | 'missing' // no third part: a two-part token
  | 'extra-part' // a fourth part
  | PartEncoding;

export const SIGNATURE_TWISTS: readonly SignatureTwist[] = ['intact', 'flip-char', 'drop-last-byte', 'drop-first-byte', 'append-byte', 'prepend-zero-byte', 'empty', 'missing', 'extra-part', ...PART_ENCODINGS];

export interface PartRecipe {
  /** An object written member by member, or any JSON (or not JSON) text. */
  json: readonly Member[] | string;
  bytes?: ByteTwist;
  encoding?: PartEncoding;
  /** Where an inserted character goes, as a fraction of the text's length. */
  at?: number;
}

export interface TokenRecipe {
  header: PartRecipe;
  payload: PartRecipe;
  /** What signs the header and payload text as they appear in the token; absent: an empty signature. */
  signer?: { algorithm: string; key: SigningMaterial };
  signature?: SignatureTwist;
  /** A signature taken from another token instead of signing this one. */
  signatureText?: string;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

export function base64url(data: string | Uint8Array): string {
  return Buffer.from(data).toString('base64url');
}

/** An object's JSON text with its members as listed (JSON.parse keeps the last of a repeated name). */
export function objectText(members: readonly Member[], now: number): string {
  return `{${members.map(([name, value]) => `${JSON.stringify(name)}:${valueText(value, now)}`).join(',')}}`;
}

function valueText(value: ValueText, now: number): string {
  return typeof value === 'string' ? value : String(now + value.sinceNow);
}

function partBytes(part: PartRecipe, now: number): Buffer {
  const text = typeof part.json === 'string' ? part.json : objectText(part.json, now);
  const bytes = Buffer.from(text, 'utf8');
  const twist = part.bytes ?? 'none';
  if (twist === 'none') return bytes;
  if (twist === 'bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
  if (twist === 'whitespace') return Buffer.concat([Buffer.from(' \n\t'), bytes, Buffer.from('\r\n ')]);
  const inside = { 'invalid-utf8': [0xff], 'overlong-utf8': [0xc0, 0x80], 'surrogate-utf8': [0xed, 0xa0, 0x80], 'truncated-utf8': [0xe2, 0x82], nul: [0x00] }[twist];
  // Just after the first string value's opening quote; without one, at the start.
  const quote = text.indexOf(':"');
  const at = quote === -1 ? 0 : Buffer.byteLength(text.slice(0, quote + 2));
  return Buffer.concat([bytes.subarray(0, at), Buffer.from(inside), bytes.subarray(at)]);
}

function insertAt(text: string, fraction: number, inserted: string): string {
  const at = Math.min(text.length, Math.floor(text.length * fraction));
  return text.slice(0, at) + inserted + text.slice(at);
}

/** Writes base64url `text` the way `encoding` says. */
export function reencode(text: string, encoding: PartEncoding, at = 0.5): string {
  switch (encoding) {
    case 'canonical':
      return text;
    case 'padded':
      return text + '='.repeat((4 - (text.length % 4)) % 4 || 2);
    case 'standard-alphabet':
      return text.replace(/-/g, '+').replace(/_/g, '/');
    case 'trailing-bits': {
      // 2 characters of a last group carry 1 byte (4 unused bits), 3 carry 2 bytes (2 unused bits).
      const unused = text.length % 4 === 2 ? 0b1111 : text.length % 4 === 3 ? 0b11 : 0;
      if (unused === 0) return `${text}Q`;
      const last = ALPHABET.indexOf(text.at(-1)!);
      return text.slice(0, -1) + ALPHABET[last | unused]!;
    }
    case 'dangling-char':
      return `${text}A`;
    case 'tilde':
      return insertAt(text, at, '~');
    case 'star':
      return insertAt(text, at, '*');
    case 'space':
      return insertAt(text, at, ' ');
    case 'dot':
      return insertAt(text, at, '.');
    case 'equals-inside':
      return insertAt(text, at, '=');
    case 'empty':
      return '';
  }
}

function twistSignature(signature: Buffer, twist: SignatureTwist, at: number): string | undefined {
  const text = signature.toString('base64url');
  switch (twist) {
    case 'intact':
      return text;
    case 'flip-char': {
      const index = Math.min(text.length - 1, Math.floor(text.length * at));
      if (index < 0) return 'A';
      const replaced = ALPHABET[(ALPHABET.indexOf(text[index]!) + 1 + Math.floor(at * 62)) % 64]!;
      return text.slice(0, index) + replaced + text.slice(index + 1);
    }
    case 'drop-last-byte':
      return signature.subarray(0, -1).toString('base64url');
    case 'drop-first-byte':
      return signature.subarray(1).toString('base64url');
    case 'append-byte':
      return Buffer.concat([signature, Buffer.from([0x5a])]).toString('base64url');
    case 'prepend-zero-byte':
      return Buffer.concat([Buffer.from([0]), signature]).toString('base64url');
    case 'empty':
      return '';
    case 'missing':
      return undefined;
    case 'extra-part':
      return `${text}.${text}`;
    default:
      return reencode(text, twist, at);
  }
}

/** The token's text, with times counted from `now` (seconds since the epoch). */
export function forgeToken(recipe: TokenRecipe, now: number): string {
  const header = reencode(base64url(partBytes(recipe.header, now)), recipe.header.encoding ?? 'canonical', recipe.header.at);
  const payload = reencode(base64url(partBytes(recipe.payload, now)), recipe.payload.encoding ?? 'canonical', recipe.payload.at);
  const input = `${header}.${payload}`;
  if (recipe.signatureText !== undefined) return `${input}.${recipe.signatureText}`;
  const signed = recipe.signer === undefined ? Buffer.alloc(0) : signAs(recipe.signer.algorithm, recipe.signer.key, input) ?? Buffer.alloc(0);
  const signature = twistSignature(signed, recipe.signature ?? 'intact', recipe.header.at ?? 0.5);
  return signature === undefined ? input : `${input}.${signature}`;
}
