import { createHash, type Hash } from 'node:crypto';

/**
 * The hash algorithms accepted in a bundle signature's file list. OPA also accepts MD5 and SHA-1;
 * svcgate does not, since a signer's choice of a broken hash would let a second file pass as the
 * signed one.
 */
export const FILE_HASHES: Readonly<Record<string, string>> = {
  'SHA-256': 'sha256',
  'SHA-224': 'sha224',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
};

/** Files that OPA hashes as parsed JSON (canonical), not as bytes. */
export function isStructured(name: string): boolean {
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base === 'data.json' || base === '.manifest';
}

/**
 * A file's hash as OPA computes it for `.signatures.json`: bytes as they are, except for
 * `data.json` and `.manifest`, which are hashed in OPA's canonical form (keys sorted by their
 * UTF-8 bytes, no spaces, strings as Go's encoder writes them), so that reformatting the JSON
 * does not change the hash.
 */
export function fileHash(name: string, bytes: Uint8Array, algorithm: string): string {
  const hash = createHash(FILE_HASHES[algorithm]!);
  if (isStructured(name)) {
    const writer = new BufferedHash(hash);
    writeCanonical(writer, JSON.parse(Buffer.from(bytes).toString('utf8')));
    writer.flush();
  } else {
    hash.update(bytes);
  }
  return hash.digest('hex');
}

/**
 * Whether a file matches the hash its signature lists. A structured file already in canonical
 * form (svcgate writes them so) matches by its bytes, which spares parsing and rewriting 24 MiB of
 * JSON: bytes whose hash is the signed one are the signed canonical text itself.
 */
export function fileMatches(name: string, bytes: Uint8Array, algorithm: string, expected: string): boolean {
  const hex = expected.toLowerCase();
  if (isStructured(name) && createHash(FILE_HASHES[algorithm]!).update(bytes).digest('hex') === hex) return true;
  return fileHash(name, bytes, algorithm) === hex;
}

/** `value` as JSON in OPA's canonical form: what `fileHash` hashes for a structured file. */
export function canonicalJson(value: unknown): string {
  const chunks: string[] = [];
  writeCanonical({ write: (text) => chunks.push(text) }, value);
  return chunks.join('');
}

interface TextSink {
  write(text: string): void;
}

/** Millions of small updates cost more than the hashing itself; text is handed over in 64 KiB pieces. */
class BufferedHash implements TextSink {
  private pending = '';

  constructor(private readonly hash: Hash) {}

  write(text: string): void {
    this.pending += text;
    if (this.pending.length >= 65_536) this.flush();
  }

  flush(): void {
    this.hash.update(this.pending, 'utf8');
    this.pending = '';
  }
}

function writeCanonical(out: TextSink, value: unknown): void {
  if (Array.isArray(value)) {
    out.write('[');
    value.forEach((item, index) => {
      if (index > 0) out.write(',');
      writeCanonical(out, item);
    });
    out.write(']');
  } else if (value !== null && typeof value === 'object') {
    out.write('{');
    Object.keys(value)
      .sort(compareUtf8)
      .forEach((key, index) => {
        out.write(index > 0 ? `,${goString(key)}:` : `${goString(key)}:`);
        writeCanonical(out, (value as Record<string, unknown>)[key]);
      });
    out.write('}');
  } else {
    out.write(typeof value === 'string' ? goString(value) : JSON.stringify(value));
  }
}

/** JSON.stringify writes strings as Go's encoder (without HTML escaping) does, except for U+2028 and U+2029, which Go escapes. */
function goString(value: string): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (char) => (char === '\u2028' ? '\\u2028' : '\\u2029'));
}

/**
 * Go sorts map keys by their UTF-8 bytes; JavaScript compares UTF-16 code units. The two orders
 * differ only where a surrogate (a character above U+FFFF) meets a unit from U+E000 to U+FFFF:
 * in UTF-8 the surrogate pair's character is the larger.
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xSurrogate = x >= 0xd800 && x <= 0xdfff;
    const ySurrogate = y >= 0xd800 && y <= 0xdfff;
    if (xSurrogate !== ySurrogate && Math.max(x, y) >= 0xe000) return xSurrogate ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
