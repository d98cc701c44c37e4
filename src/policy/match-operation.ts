import type { OperationSpec } from './data-document';

export interface OperationMatch {
  /** The operation's key in the data document, e.g. `GET /users/{userId}`. */
  key: string;
  operation: OperationSpec;
  /** Percent-decoded path parameter values by template name. */
  pathParams: Record<string, string>;
}

interface Route {
  key: string;
  operation: OperationSpec;
  pattern: RegExp;
  names: string[];
}

export type OperationMatcher = (method: string, pathname: string) => OperationMatch | undefined;

/**
 * Finds the operation a request addresses. As OpenAPI asks, concrete paths win over templated
 * ones (`/users/me` before `/users/{id}`). HEAD falls back to the GET operation, and letters match
 * in any case, as Express routes them: a guard must see every request its app would serve.
 */
export function createOperationMatcher(operations: Record<string, OperationSpec>): OperationMatcher {
  const routes = Object.entries(operations)
    .map(([key, operation]) => toRoute(key, operation))
    .sort((a, b) => a.names.length - b.names.length || literalLength(b) - literalLength(a));

  const find = (method: string, pathname: string): OperationMatch | undefined => {
    for (const route of routes) {
      if (route.operation.method !== method) continue;
      const match = route.pattern.exec(pathname);
      if (!match) continue;
      const pathParams = decodeParams(route.names, match.slice(1));
      if (pathParams) return { key: route.key, operation: route.operation, pathParams };
    }
    return undefined;
  };

  return (method, pathname) => {
    const upper = method.toUpperCase();
    return find(upper, pathname) ?? (upper === 'HEAD' ? find('GET', pathname) : undefined);
  };
}

function toRoute(key: string, operation: OperationSpec): Route {
  const names: string[] = [];
  const source = operation.path
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(name);
      return '([^/]+)';
    })
    .join('');
  return { key, operation, pattern: new RegExp(`^${source}/?$`, 'i'), names };
}

function literalLength(route: Route): number {
  return route.operation.path.replace(/\{[^}]+\}/g, '').length;
}

/** A segment with broken percent-encoding matches nothing rather than throwing. */
function decodeParams(names: string[], values: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [index, name] of names.entries()) {
    try {
      params[name] = decodeURIComponent(values[index]!);
    } catch {
      return undefined;
    }
  }
  return params;
}
