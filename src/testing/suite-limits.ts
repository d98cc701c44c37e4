import { MAX_FILE_DEPTH } from '../policy/compile/documents/document-limits';
import { isPlainObject } from '../policy/compile/documents/plain-object';

/**
 * How much a permission suite may ask of the runner. The document limits bound the values a
 * suite holds, counting each use of a YAML alias in full, but a string alias counts once however
 * long it is, and one test lists many principals: a 37 KB suite made 90,000 cases (31 s, 350 MB),
 * and a 1 MiB path used by each case is sent, printed and written to the JUnit report each time.
 * These bounds hold before any request is sent.
 */

/** Cases (principals x tests) in one suite: a few seconds of requests; a real suite has tens to hundreds. */
export const MAX_SUITE_CASES = 10_000;

/** A request's path and headers together, as sent: half of the 16 KiB Node's HTTP server reads, leaving room for the token. */
export const MAX_REQUEST_HEAD_BYTES = 8 * 1024;

/** A principal's claims as JSON: its token goes in the Authorization header beside the path and headers. */
export const MAX_CLAIMS_BYTES = 4 * 1024;

/** A request body as sent: express.json()'s limit (100kb) in the suite's app; a larger one is answered 413 before the guard. */
export const MAX_BODY_BYTES = 100 * 1024;

/** The bytes of a request's path and headers (printable ASCII, as the format allows), counted up to just past `limit`. */
export function requestHeadOver(path: string, headers: Record<string, string> | undefined, limit: number): boolean {
  let bytes = path.length;
  for (const name in headers) {
    // `name: value\r\n`
    bytes += name.length + headers[name]!.length + 4;
    if (bytes > limit) return true;
  }
  return bytes > limit;
}


/**
 * Whether `value` as JSON takes more than `limit` bytes (strings counted in UTF-8, without
 * escapes) or is nested deeper than a document file may be (MAX_FILE_DEPTH: an object suite's
 * value may hold itself). The walk stops once past either, so it visits at most about `limit`
 * values whatever the value holds.
 */
export function jsonOver(value: unknown, limit: number): boolean {
  let length = 0;
  const visit = (node: unknown, depth: number): boolean => {
    if (depth > MAX_FILE_DEPTH) return true;
    // UTF-8 bytes, measured only for a string short enough to fit: a longer one is over already.
    if (typeof node === 'string') length += (node.length > limit ? node.length : Buffer.byteLength(node)) + 2;
    else if (Array.isArray(node)) {
      length += 2;
      for (const item of node) if (visit(item, depth + 1) || length > limit) return true;
    } else if (isPlainObject(node)) {
      length += 2;
      for (const key in node) if ((length += key.length + 4) > limit || visit(node[key], depth + 1)) return true;
    } else length += String(node).length;
    return length > limit;
  };
  return visit(value, 0);
}
