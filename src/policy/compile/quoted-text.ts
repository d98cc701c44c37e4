/** The most characters of one value from a bundle shown in a message; the rest is cut off with `...`. */
const MAX_SHOWN = 200;

/**
 * Text from untrusted input (a bundle's file name or revision, a document's $ref or key) as a message shows it: JSON-quoted,
 * cut short, and with every character outside printable ASCII written as `\uXXXX`. JSON.stringify
 * alone leaves C1 controls (U+009B starts a terminal escape too), bidi overrides (U+202E turns what
 * follows around on screen) and the like as they are: none of them reaches a log or a CI console.
 */
export function quoted(text: string, max = MAX_SHOWN): string {
  return printableAscii(JSON.stringify(text.length > max ? `${text.slice(0, max)}...` : text));
}

/** Any untrusted value as JSON in a message, cut short and escaped as `quoted` does, and never a stack overflow. */
export function quotedJson(value: unknown, max = MAX_SHOWN): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return '(a value nested too deep to show)';
  }
  if (text === undefined) return `(${typeof value})`;
  return printableAscii(text.length > max ? `${text.slice(0, max)}...` : text);
}

function printableAscii(json: string): string {
  return json.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
