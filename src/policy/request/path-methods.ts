import { matchSegment, type SegmentPattern } from './match-segment';
import { requestSegments, templateSegments } from './match-operation';

/** The HTTP methods an OpenAPI path item can hold, in the order an `Allow` header lists them. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'];
const OPENAPI_METHODS = new Set(METHOD_ORDER.map((method) => method.toLowerCase()));

/**
 * The methods the document declares for the paths a request path matches, upper case, or
 * undefined when it matches no path: what a 405's `Allow` lists. Paths match as the operation
 * matcher matches them (any letter case, one trailing `/`), here without telling templates apart:
 * `/users/me` is both `/users/me` and `/users/{id}`, and a method of either routes.
 */
export type PathMethods = (pathname: string) => readonly string[] | undefined;

interface DocumentedPath {
  segments: SegmentPattern[];
  methods: ReadonlySet<string>;
}

/**
 * Built once from the document's `paths`, and only asked about requests that matched no
 * operation, so a matched request pays nothing for it. HEAD is listed wherever GET is: the
 * matcher decides HEAD as GET, as Express routes it.
 */
export function createPathMethods(paths: Record<string, unknown>): PathMethods {
  const documented: DocumentedPath[] = Object.entries(paths).map(([path, item]) => {
    const methods = new Set(Object.keys(item ?? {}).filter((key) => OPENAPI_METHODS.has(key)).map((key) => key.toUpperCase()));
    if (methods.has('GET')) methods.add('HEAD');
    return { segments: templateSegments(path), methods };
  });
  return (pathname) => {
    const lower = requestSegments(pathname);
    const methods = new Set<string>();
    let matched = false;
    for (const path of documented) {
      if (!matchesShape(path.segments, pathname, lower)) continue;
      matched = true;
      for (const method of path.methods) methods.add(method);
    }
    return matched ? METHOD_ORDER.filter((method) => methods.has(method)) : undefined;
  };
}

/** Whether every segment matches; a segment that splits more than one way still matches the path. */
function matchesShape(segments: SegmentPattern[], pathname: string, lower: string[]): boolean {
  if (segments.length !== lower.length) return false;
  let offset = 1;
  for (let index = 0; index < lower.length; index++) {
    const segment = lower[index]!;
    if (matchSegment(segments[index]!, segment, pathname, offset) === undefined) return false;
    offset += segment.length + 1;
  }
  return true;
}
