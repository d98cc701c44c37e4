import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { ownProperty, type CookieValues, type QueryValues, type RequestParts } from '../policy/request/build-input';
import { RequestValidationError } from '../policy/request/request-validation-error';

/** What the adapters need of an Express request; kept structural so Express 4 and 5 both fit. */
export interface HttpRequest {
  url?: string;
  headers: IncomingHttpHeaders;
  /** The application's own reading of the query string (Express: its `query parser` setting). */
  query?: unknown;
  body?: unknown;
  /** The response, as Express links it: a shadow candidate decides after it closes. */
  res?: ServerResponse;
}

/**
 * The parts parameters are read from, as the route handler will get them. Query values are the
 * application's (`req.query`: qs in Express 4 and @oas-tools/core, node:querystring in Express 5,
 * or whatever the app configured), checked against a plain reading of the query string: where
 * the two differ (a bracketed or repeated key, a nested object, a key beyond the parser's limit)
 * the request is refused, because the guard and the handler would decide on different values.
 * Query and cookies are read only if a parameter needs them; `req.query` once per request, or
 * not at all when the host passes the `query` object it read the handler's values from.
 */
export function requestParts(req: HttpRequest, pathParams: Record<string, string>, query?: unknown): RequestParts {
  return new LazyRequestParts(req, pathParams, query);
}

// A class, not an object literal with getters: its accessors live on one shared prototype, so a
// request costs one small allocation.
class LazyRequestParts implements RequestParts {
  private parsedQuery: AppQuery | undefined;
  private parsedCookies: AppCookies | undefined;

  constructor(
    private readonly req: HttpRequest,
    readonly pathParams: Record<string, string>,
    private readonly appQuery: unknown,
  ) {}

  get query(): QueryValues {
    this.parsedQuery ??= new AppQuery(this.req.url ?? '', this.appQuery ?? this.req.query);
    return this.parsedQuery;
  }

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  get cookies(): CookieValues {
    this.parsedCookies ??= new AppCookies(this.req.headers.cookie);
    return this.parsedCookies;
  }

  get body(): unknown {
    return this.req.body;
  }
}

class AppQuery implements QueryValues {
  private plain: URLSearchParams | undefined;

  /** `parsed`: the application's reading of the query string, read once per request. */
  constructor(
    private readonly url: string,
    private readonly parsed: unknown,
  ) {}

  getAll(name: string): string[] {
    const queryStart = this.url.indexOf('?');
    this.plain ??= new URLSearchParams(queryStart === -1 ? '' : this.url.slice(queryStart + 1));
    const plain = this.plain.getAll(name);
    if (this.hasVariantOf(name)) throw ambiguous(name);
    const { parsed } = this;
    if (typeof parsed !== 'object' || parsed === null) return plain;
    const app = appValues(ownProperty(parsed, name));
    if (app === undefined || app.length !== plain.length || app.some((value, index) => value !== plain[index])) throw ambiguous(name);
    return plain;
  }

  /**
   * A key another parser would read as this parameter (`name[]`, `name[0]`, `name.x`, `[name]`):
   * refused even when this app's parser keeps it apart, because a router or sub-app further on may
   * parse the query again its own way (Express 5 re-parses `req.query` with each app's setting).
   */
  private hasVariantOf(name: string): boolean {
    for (const key of this.plain!.keys()) {
      if (key !== name && (key.startsWith(`${name}[`) || key.startsWith(`${name}.`) || key.startsWith(`[${name}]`))) return true;
    }
    return false;
  }
}

function ambiguous(name: string): RequestValidationError {
  return new RequestValidationError('ERR_SVCGATE_PARAM', `the query parameter ${name} can be read differently by query parsers (a bracketed, dotted, nested or repeated key, or too many parameters); send it once as ${name}=<value>`);
}

/** The app's value as a list of strings; undefined for shapes a parameter value cannot have. */
function appValues(value: unknown): string[] | undefined {
  if (value === undefined) return [];
  if (typeof value === 'string') return [value];
  return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
}

/**
 * Cookie parsers disagree on a name given twice (first or last wins), on quoted values and on
 * percent-decoding (the `cookie` package decodes, @oas-tools/core does not, and cuts the value at
 * its first `=`). A parameter read from such a cookie is refused; any other is read as every
 * parser reads it.
 */
class AppCookies implements CookieValues {
  private readonly values = new Map<string, string>();
  private readonly ambiguous = new Set<string>();

  constructor(header: string | undefined) {
    for (const pair of header?.split(';') ?? []) {
      const index = pair.indexOf('=');
      if (index === -1) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (this.values.has(name) || /["%=]/.test(value)) this.ambiguous.add(name);
      this.values.set(name, value);
    }
  }

  get(name: string): string | undefined {
    if (this.ambiguous.has(name)) {
      throw new RequestValidationError('ERR_SVCGATE_PARAM', `the cookie ${name} is given twice or holds a quote, "%" or "=", which cookie parsers read differently`);
    }
    return this.values.get(name);
  }
}
