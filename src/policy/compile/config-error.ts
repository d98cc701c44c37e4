import { quoted } from './quoted-text';

/**
 * Thrown at start-up when a configuration (ACL, OpenAPI document, options) is invalid.
 * The message always names where the problem is (file and JSON path) and how to fix it.
 */
export class ConfigError extends Error {
  readonly code = 'ERR_SVCGATE_CONFIG';
  override readonly name = 'ConfigError';

  constructor(
    /** The file the problem is in, or `<inline ...>` when the value was passed as an object. */
    readonly file: string,
    /** A JSON path inside that file, such as `$.user["/users/{id}"]["read:own"]`. */
    readonly path: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`${file} at ${path}: ${problem}. Fix: ${fix}`);
  }
}

/**
 * Formats a list of keys as a JSON path: `$.a["/b/{c}"][0]`. Keys come from documents, so any
 * other than a plain name is quoted as messages quote such text (printable ASCII, cut short).
 */
export function jsonPath(segments: readonly (string | number)[]): string {
  return segments.reduce<string>((acc, segment) => {
    if (typeof segment === 'number') return `${acc}[${segment}]`;
    return /^[A-Za-z_$][\w$]*$/.test(segment) ? `${acc}.${segment}` : `${acc}[${quoted(segment)}]`;
  }, '$');
}
