import { BundleError } from './bundle-error';

const SPACE = 0x20;
const NEWLINE = 0x0a;
const EQUALS = 0x3d;
const PATH_KEY = Buffer.from('path', 'ascii');
/** A record's length field: the body is capped far below 10^7 bytes, so more digits are malformed. */
const MAX_LENGTH_DIGITS = 7;

/**
 * The `path` of a PAX extended header's body (undefined when it sets none). The body is a run of
 * records `<length> <key>=<value>\n`, where `<length>` counts the whole record in bytes: each record
 * is found from the previous one's length, never by searching for newlines, so a body is read once
 * whatever it holds (values may themselves hold newlines). A body that does not divide into such
 * records is refused: tools would disagree on which path it names.
 */
export function paxPath(body: Buffer): string | undefined {
  let path: string | undefined;
  for (let at = 0; at < body.length; ) {
    let length = 0;
    let digit = at;
    while (digit < body.length && digit - at < MAX_LENGTH_DIGITS && body[digit]! >= 0x30 && body[digit]! <= 0x39) {
      length = length * 10 + body[digit]! - 0x30;
      digit++;
    }
    const end = at + length;
    // The shortest record after its length is " k=\n": the end lies past the space, and in the body.
    if (digit === at || body[digit] !== SPACE || end < digit + 4 || end > body.length || body[end - 1] !== NEWLINE) throw malformed();
    const record = body.subarray(digit + 1, end - 1);
    const equals = record.indexOf(EQUALS);
    if (equals < 1) throw malformed();
    if (record.subarray(0, equals).equals(PATH_KEY)) {
      // An empty value unsets the key (POSIX pax): the header's own name applies again.
      const value = record.subarray(equals + 1).toString('utf8');
      path = value === '' ? undefined : value;
    }
    at = end;
  }
  return path;
}

function malformed(): BundleError {
  return new BundleError('ERR_SVCGATE_BUNDLE_ARCHIVE', 'a PAX extended header is malformed: its body must be records of "<length> <key>=<value>\\n"');
}
