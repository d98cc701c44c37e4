import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import '../guard/express-request';

// The request, response and app types SvcApi hands out. They describe Express (4 or 5) by the
// members svcgate and its users' interceptors need, and import nothing from 'express': the
// published types then type-check in a project without @types/express (Express is a peer
// dependency, its types an optional one). Express's own Request, Response and NextFunction are
// assignable to them, so a project with @types/express passes its Express-typed middleware.

/**
 * The request an interceptor gets: Express's request. It extends the global `Express.Request`, so
 * `req.auth` (set by svcAcl) and what an app adds there (passport's `user`, say) show here too.
 * With @types/express, type the parameter as Express's `Request` for the rest of its API.
 */
export interface SvcRequest extends IncomingMessage, Express.Request {
  /** SvcApi's routes have no path parameters; an app it is mounted in may have some. */
  params: Record<string, string | string[]>;
  /** The parsed query string (SvcApi's app parses it with Express's 'simple' parser on 4 and 5). */
  query: SvcQuery;
  /** The parsed JSON body, for POST, PUT and PATCH routes; `any` as in Express's types. */
  body?: any;
  path: string;
  baseUrl: string;
  originalUrl: string;
  hostname: string;
  /** The client's address (`undefined` once the socket is closed). */
  ip?: string | undefined;
  protocol: string;
  secure: boolean;
  /** A request header, by case-insensitive name. */
  get(name: string): string | undefined;
  header(name: string): string | undefined;
}

/**
 * A parsed query string, as Express's types describe it (qs's `ParsedQs`): strings and lists, and
 * nested objects when an outer Express 4 app parsed it with qs.
 */
export interface SvcQuery {
  [key: string]: undefined | string | SvcQuery | (string | SvcQuery)[];
}

/** The response of Express as an interceptor uses it. With @types/express, type it as Express's `Response` for the rest of its API. */
export interface SvcHttpResponse extends ServerResponse {
  /** Values for the rest of the request's chain (`res.locals.svc` is SvcApi's own); `any` as in Express's types. */
  locals: Record<string, any>;
  status(code: number): this;
  /** Sends `body` as JSON. */
  json(body?: unknown): this;
  send(body?: unknown): this;
  sendStatus(code: number): this;
  /** Sets a response header. */
  set(field: string, value?: string | string[]): this;
  header(field: string, value?: string | string[]): this;
  get(field: string): string | undefined;
  /** Sets the Content-Type, from a MIME type or an extension. */
  type(type: string): this;
}

/** The `next` an interceptor calls: nothing (or `undefined`/`null`) to go on, an error to fail the request. */
export type SvcNext = (error?: unknown) => void;

/**
 * What `api.app` and `api.handler()` give: the Express app SvcApi built. A request listener, so it
 * mounts in another app (`app.use('/v2', api.app)`), serves with `http.createServer(api.app)`,
 * and goes to supertest as it is.
 */
export interface SvcApp {
  (req: IncomingMessage, res: ServerResponse, next?: SvcNext): void;
  /** Express's `app.listen`: an http.Server listening on `port` (see also `SvcApi.listen`). */
  listen(port?: number, hostname?: string, callback?: () => void): Server;
  /** An Express app setting (`'trust proxy'`, `'json spaces'`, ...). */
  set(setting: string, value: unknown): this;
  locals: Record<string, unknown>;
}
