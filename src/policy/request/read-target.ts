import { RequestValidationError } from './request-validation-error';

/** A request target split at its first `?`; both parts still percent-encoded. */
export interface RequestTarget {
  pathname: string;
  query: string;
}

const SLASH = 0x2f;
const QUESTION = 0x3f;
const PERCENT = 0x25;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const DOT = 0x2e;
const DOT_SEGMENTS = new Set(['.', '..', '%2e', '.%2e', '%2e.', '%2e%2e']);

/**
 * Reads a request target the one way every router agrees on, or refuses it. Express reads a
 * target with a `#`, a space or a non-ASCII byte through `url.parse`, which turns `\` into `/`;
 * a proxy resolves `.` and `..` segments and may decode `%2F`. A guard that reads such a target
 * another way decides on a path the handler never sees, so only plain origin-form targets pass:
 * printable ASCII, valid percent-escapes, no encoded separator and no empty or dot segment in
 * the path. One pass over the text, so its cost is linear in the target's length.
 */
export function readTarget(target: string): RequestTarget {
  if (target.charCodeAt(0) !== SLASH) refuse('the request target must be a path (origin-form, /path?query)');
  let queryStart = -1;
  let segmentStart = 1;
  for (let index = 1; index < target.length; index++) {
    const code = target.charCodeAt(index);
    if (code < 0x21 || code > 0x7e) refuse('the request target holds a control, space or non-ASCII character; percent-encode it');
    if (code === BACKSLASH || code === HASH) refuse(`the request target holds a "${target[index]}", which routers read differently; percent-encode it`);
    if (queryStart === -1 && (code === SLASH || code === QUESTION)) {
      checkSegment(target, segmentStart, index, code === SLASH);
      segmentStart = index + 1;
      if (code === QUESTION) queryStart = index;
    }
    if (code !== PERCENT) continue;
    if (!isHex(target.charCodeAt(index + 1)) || !isHex(target.charCodeAt(index + 2))) refuse('the request target holds an invalid percent-escape');
    if (queryStart === -1 && isEncodedSeparator(target, index)) refuse('the request path holds an encoded "/" or "\\", which routers read differently');
  }
  if (queryStart === -1) checkSegment(target, segmentStart, target.length, false);
  const pathEnd = queryStart === -1 ? target.length : queryStart;
  return { pathname: target.slice(0, pathEnd), query: queryStart === -1 ? '' : target.slice(queryStart + 1) };
}

/**
 * Empty segments (`//`) and dot segments are resolved by some layers and not by others. A single
 * trailing `/` is fine: a segment followed by `/` must not be empty.
 */
function checkSegment(target: string, start: number, end: number, followedBySlash: boolean): void {
  if (start === end) {
    if (followedBySlash) refuse('the request path has an empty segment (//)');
    return;
  }
  const first = target.charCodeAt(start);
  if ((first === DOT || first === PERCENT) && end - start <= 6 && DOT_SEGMENTS.has(target.slice(start, end).toLowerCase())) refuse('the request path has a "." or ".." segment');
}

function isEncodedSeparator(target: string, index: number): boolean {
  const high = target.charCodeAt(index + 1);
  const low = target.charCodeAt(index + 2) | 0x20;
  return (high === 0x32 && low === 0x66) || (high === 0x35 && low === 0x63);
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x66);
}

function refuse(message: string): never {
  throw new RequestValidationError('ERR_SVCGATE_TARGET', message);
}
