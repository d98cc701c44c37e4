/** An http(s) URI without query and fragment, normalized. */
export interface NormalizedUri {
  /** `https://api.example.com`, `http://127.0.0.1:8080` */
  origin: string;
  /** `/users/3` */
  path: string;
}

/** Relative targets are read against this base only to normalize their path; its origin is never used. */
const PATH_ONLY = 'http://path-only.invalid';

/**
 * RFC 9449, section 4.3, step 9: a proof's htu and the request's URI compare after syntax- and
 * scheme-based normalization (RFC 3986, 6.2.2 and 6.2.3), without query and fragment. WHATWG URL
 * parsing lower-cases the scheme and host, drops a default port, gives an empty path as `/` and
 * resolves dot segments; this adds the percent-encoding rules: hex digits in upper case, and
 * unreserved characters decoded. Undefined: not an absolute http(s) URI.
 */
export function normalizedUri(text: string): NormalizedUri | undefined {
  if (!/^https?:\/\//i.test(text)) return undefined;
  return parse(text, undefined);
}

/** The path of a request target in origin-form (`/users/3?page=2`), normalized the same way. */
export function normalizedTargetPath(target: string): string | undefined {
  if (!target.startsWith('/') || target.startsWith('//')) return undefined;
  return parse(target, PATH_ONLY)?.path;
}

function parse(text: string, base: string | undefined): NormalizedUri | undefined {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  return { origin: url.origin, path: normalizedPath(url.pathname) };
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

function normalizedPath(path: string): string {
  return path.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const character = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(character) ? character : `%${hex.toUpperCase()}`;
  });
}
