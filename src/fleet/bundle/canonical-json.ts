/**
 * `value` as JSON in OPA's canonical form (keys sorted by their UTF-8 bytes, no spaces, strings as
 * Go's encoder writes them): how svcgate writes the JSON files of a bundle, so that a reader
 * matches their signed hash on their bytes.
 */
export function canonicalJson(value: unknown): string {
  const chunks: string[] = [];
  writeCanonical(chunks, value);
  return chunks.join('');
}

function writeCanonical(out: string[], value: unknown): void {
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((item, index) => {
      if (index > 0) out.push(',');
      writeCanonical(out, item);
    });
    out.push(']');
  } else if (value !== null && typeof value === 'object') {
    out.push('{');
    Object.keys(value)
      .sort(compareUtf8)
      .forEach((key, index) => {
        out.push(index > 0 ? `,${goString(key)}:` : `${goString(key)}:`);
        writeCanonical(out, (value as Record<string, unknown>)[key]);
      });
    out.push('}');
  } else {
    out.push(typeof value === 'string' ? goString(value) : JSON.stringify(value));
  }
}

/** JSON.stringify writes strings as Go's encoder (without HTML escaping) does, except for U+2028 and U+2029, which Go escapes. */
export function goString(value: string): string {
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
