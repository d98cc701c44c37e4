import type { OperationFacts } from '../../policy/compile/data-document';
import { createOperationMatcher, type OperationMatch } from '../../policy/request/match-operation';
import { createPathMethods, type PathMethods } from '../../policy/request/path-methods';

/**
 * The path prefixes the API is served under, from `servers[].url` (variables at their default or
 * each enum value). Hosts are not compared: like @oas-tools/core, only the path counts.
 */
export function serverPrefixes(servers: unknown): string[] {
  if (!Array.isArray(servers) || servers.length === 0) return [''];
  const prefixes = servers.flatMap((server: { url?: unknown; variables?: Record<string, { default?: unknown; enum?: unknown[] }> }) => {
    if (typeof server?.url !== 'string') return [];
    let urls = [server.url];
    for (const [name, variable] of Object.entries(server.variables ?? {})) {
      const values = Array.isArray(variable.enum) && variable.enum.length > 0 ? variable.enum : [variable.default];
      urls = urls.flatMap((url) => values.map((value) => url.split(`{${name}}`).join(String(value))));
    }
    return urls.map((url) => new URL(url, 'http://localhost').pathname.replace(/\/+$/, ''));
  });
  return prefixes.length > 0 ? [...new Set(prefixes)] : [''];
}

/**
 * The operation a request path is, under any of the document's server prefixes, in any letter
 * case (as Express routes paths): `/API/V1/USERS/4` is `GET /users/{userId}` under `/api/v1`.
 */
export function prefixedMatcher(operations: Record<string, OperationFacts>, servers: unknown): (method: string, pathname: string) => OperationMatch | undefined {
  const match = createOperationMatcher(operations);
  const under = underPrefixes(servers);
  return (method, pathname) => under(pathname, (rest) => match(method, rest));
}

/** The methods the document's paths declare for a request path under any server prefix (see createPathMethods). */
export function prefixedPathMethods(paths: Record<string, unknown>, servers: unknown): PathMethods {
  const methods = createPathMethods(paths);
  const under = underPrefixes(servers);
  return (pathname) => under(pathname, methods);
}

/** Asks `find` about the rest of the path under each server prefix it starts with, in any letter case; the first answer wins. */
function underPrefixes(servers: unknown): <T>(pathname: string, find: (rest: string) => T | undefined) => T | undefined {
  const prefixes = serverPrefixes(servers).map((prefix) => prefix.toLowerCase());
  return (pathname, find) => {
    const lower = pathname.toLowerCase();
    for (const prefix of prefixes) {
      if (lower !== prefix && !lower.startsWith(`${prefix}/`)) continue;
      const found = find(pathname.slice(prefix.length) || '/');
      if (found !== undefined) return found;
    }
    return undefined;
  };
}
