import type { IncomingHttpHeaders } from 'node:http';
import type { RequestParts } from '../policy/build-input';

/** What the adapters need of an Express request; kept structural so Express 4 and 5 both fit. */
export interface HttpRequest {
  originalUrl?: string;
  url?: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
}

/**
 * The raw parts parameters are read from. The query string is parsed here rather than taken from
 * `req.query`, because Express's parser turns `a[b]=1` into objects and the serialization rules
 * need the values as they were sent. Query and cookies are parsed only if a parameter reads them.
 */
export function requestParts(req: HttpRequest, pathParams: Record<string, string>): RequestParts {
  return new LazyRequestParts(req, pathParams);
}

// A class, not an object literal with getters: its accessors live on one shared prototype, so a
// request costs one small allocation.
class LazyRequestParts implements RequestParts {
  private parsedQuery: URLSearchParams | undefined;
  private parsedCookies: Record<string, string> | undefined;

  constructor(
    private readonly req: HttpRequest,
    readonly pathParams: Record<string, string>,
  ) {}

  get query(): URLSearchParams {
    if (this.parsedQuery === undefined) {
      const url = this.req.originalUrl ?? this.req.url ?? '';
      const queryStart = url.indexOf('?');
      this.parsedQuery = new URLSearchParams(queryStart === -1 ? '' : url.slice(queryStart + 1));
    }
    return this.parsedQuery;
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  get cookies(): Record<string, string> {
    this.parsedCookies ??= parseCookies(this.req.headers.cookie);
    return this.parsedCookies;
  }

  get body(): unknown {
    return this.req.body;
  }
}

function parseCookies(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const pair of header?.split(';') ?? []) {
    const index = pair.indexOf('=');
    if (index === -1) continue;
    const name = pair.slice(0, index).trim();
    if (name !== '' && !Object.hasOwn(cookies, name)) cookies[name] = safeDecode(pair.slice(index + 1).trim());
  }
  return cookies;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
