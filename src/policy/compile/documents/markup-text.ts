/**
 * Text from untrusted input (a suite's names and reasons, an ACL's roles and paths) as XML or
 * HTML character data and attribute values: the five markup characters escaped, and each
 * character XML 1.0 cannot hold at all (most controls, lone surrogates, U+FFFE/U+FFFF) replaced
 * by U+FFFD, since no escape can carry them and a parser would refuse the whole report.
 */
export function markupText(text: string): string {
  return text.replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD').replace(/[&<>"']/g, (char) => MARKUP_ESCAPES[char]!);
}

const MARKUP_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };
