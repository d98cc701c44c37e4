import type { OperationFacts } from '../compile/data-document';
import { RequestValidationError } from './request-validation-error';
import { compileSegment, matchSegment, type SegmentPattern } from './match-segment';

export interface OperationMatch {
  /** The operation's key in the data document, e.g. `GET /users/{userId}`. */
  key: string;
  operation: OperationFacts;
  /** Percent-decoded path parameter values by template name. */
  pathParams: Record<string, string>;
}

interface Route {
  key: string;
  operation: OperationFacts;
  segments: SegmentPattern[];
  paramCount: number;
  literalLength: number;
}

const NON_ASCII = /[^\x00-\x7f]/;

/** Finds the operation of a method and a still-encoded path (`/users/a%20b`); undefined when none. */
export type OperationMatcher = (method: string, pathname: string) => OperationMatch | undefined;

/**
 * Finds the operation a request addresses, segment by segment, in time linear in the path's
 * length (no backtracking pattern sees client input). As OpenAPI asks, concrete paths win over
 * templated ones (`/users/me` before `/users/{id}`); a path that two templates match is refused.
 * HEAD falls back to the GET operation, letters
 * match in any case and one trailing `/` is allowed, as Express routes them: a guard must see
 * every request its app would serve. A segment that Express could split more than one way
 * (`/dates/{year}-{month}-{day}` given `2024-01-02-03`) is refused rather than guessed.
 */
export function createOperationMatcher(operations: Record<string, OperationFacts>): OperationMatcher {
  const routes = Object.entries(operations)
    .map(([key, operation]) => toRoute(key, operation))
    .sort((a, b) => a.paramCount - b.paramCount || b.literalLength - a.literalLength);

  const find = (method: string, pathname: string, lower: string[]): OperationMatch | undefined => {
    let found: OperationMatch | undefined;
    for (const route of routes) {
      if (route.operation.method !== method || route.segments.length !== lower.length) continue;
      const pathParams = matchRoute(route, pathname, lower);
      if (!pathParams) continue;
      if (route.paramCount === 0) return { key: route.key, operation: route.operation, pathParams };
      // Two templates that both match (`/files/{id}` and `/files/{name}.json`) are left to the tool
      // by OpenAPI, and Express runs whichever route was registered first: refuse, do not guess.
      if (found) throw new RequestValidationError('ERR_SVCGATE_PATH', `the path matches both ${found.operation.path} and ${route.operation.path}`);
      found = { key: route.key, operation: route.operation, pathParams };
    }
    return found;
  };

  return (method, pathname) => {
    const lower = requestSegments(pathname);
    const upper = method.toUpperCase();
    return find(upper, pathname, lower) ?? (upper === 'HEAD' ? find('GET', pathname, lower) : undefined);
  };
}

/**
 * A request path's segments in lower case, without the leading `/` and one trailing `/`. Literals
 * are compared in lower case. Only in ASCII does lower-casing keep every position and turn no
 * letter into another script's (the Kelvin sign into k), so other text is refused; the values are
 * cut from the path as sent.
 */
export function requestSegments(pathname: string): string[] {
  if (NON_ASCII.test(pathname)) throw new RequestValidationError('ERR_SVCGATE_PATH', 'the path holds a non-ASCII character; percent-encode it');
  const lower = pathname.toLowerCase().split('/');
  lower.shift();
  if (lower.length > 1 && lower[lower.length - 1] === '') lower.pop();
  return lower;
}

/** A path template's segments, compiled. */
export function templateSegments(path: string): SegmentPattern[] {
  const parts = path.split('/').slice(1);
  // A template's trailing `/` is optional, as a request's is: Express matches `/admin/` as `/admin`.
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.map(compileSegment);
}

function toRoute(key: string, operation: OperationFacts): Route {
  const segments = templateSegments(operation.path);
  const paramCount = segments.reduce((count, segment) => count + segment.names.length, 0);
  const literalLength = operation.path.replace(/\{[^}]*\}/g, '').length;
  return { key, operation, segments, paramCount, literalLength };
}

function matchRoute(route: Route, pathname: string, lower: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  let offset = 1;
  for (let index = 0; index < lower.length; index++) {
    const segment = lower[index]!;
    const values = matchSegment(route.segments[index]!, segment, pathname, offset);
    if (values === undefined) return undefined;
    if (values === 'ambiguous') {
      throw new RequestValidationError('ERR_SVCGATE_PATH', `the path segment ${index + 1} can be split more than one way for ${route.operation.path}`);
    }
    route.segments[index]!.names.forEach((name, at) => (params[name] = decode(values[at]!)));
    offset += segment.length + 1;
  }
  return params;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new RequestValidationError('ERR_SVCGATE_PATH', 'a path parameter holds an invalid percent-escape');
  }
}
