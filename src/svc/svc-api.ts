import type { Server } from 'node:http';
// The app's own Express (4 or 5, a peer dependency): its types stay out of the published ones (see svc-http.ts).
import type { Express, NextFunction, Request, RequestHandler, Response } from 'express';
import { peerExpress } from '../hosts/express/peer-express';
import '../guard/express-request';
import { SvcgateHttpError } from '../guard/http-errors';
import { answerFor, asError, logEntryFor } from './errors';
import { readsBody } from './http-method';
import { isPlainObject, resolveInterceptors, type ExpressMiddleware, type Interceptor, type InterceptorMap, type MiddlewareMap, type SvcResponse } from './interceptors';
import { routesOpenApi, type RoutesOpenApi } from './routes-openapi';
import { collectRoutes, type RouteTable, type SvcRoute } from './routes';
import { serviceArgument, type SvcRequestState } from './service-argument';
import type { SvcApp } from './svc-http';
import type { DependencyCheck } from './container-types';
import type { SvcContainer } from './svc-container';

/** The options of `new SvcApi(container, options)`. */
export interface SvcApiOptions {
  /** Largest JSON body accepted: bytes, or a size string as express.json takes (`'1mb'`); larger ones are answered 413. Default `'100kb'`. */
  bodyLimit?: number | string;
  /** Milliseconds: a request no interceptor or handler answered in this time gets 503. Default `30000` (ms). */
  timeoutMs?: number;
  /** Where the messages of unmapped errors go (they are not sent). Default `console.error`. */
  logError?: (message: string, error: unknown) => void;
}

/** The SvcApi method an interceptor was registered with: before the service method runs, or after. */
export type Registration = 'interceptAll' | 'intercept' | 'interceptAfter' | 'interceptAllAfter';

/**
 * Builds interceptors that need the API's description (svcAcl) once the routes are known, and
 * tells them where they were registered: a guard registered to run after the method would decide
 * once the method had already run.
 */
export const BIND_TO_API = Symbol('svcgate.bindToApi');
export type BindableInterceptor = Interceptor & { [BIND_TO_API]?: (api: RoutesOpenApi, table: RouteTable, registeredWith: Registration) => void };


/**
 * Serves the public methods of a container's services as `/api/<service>/<method>` on Express.
 * Configure with the chainable methods, then use `app`, `handler()` or `listen(port)`.
 */
export class SvcApi {
  private container: SvcContainer<object, object> | undefined;
  private readonly before: Interceptor[] = [];
  private readonly after: Interceptor[] = [];
  private readonly beforeMaps: InterceptorMap[] = [];
  private readonly afterMaps: InterceptorMap[] = [];
  private statuses: Record<string, number> = {};
  private built: Express | undefined;
  private description: RoutesOpenApi | undefined;
  private routeTable: RouteTable | undefined;

  constructor(private readonly options: SvcApiOptions = {}) {}

  /** Serves `container`'s services; does not compile when a constructor declares a service the container does not hold. */
  from<S extends object, U extends object, R>(container: SvcContainer<S, U, R> & DependencyCheck<S, U, R>): this {
    this.unbuilt('from');
    this.container = container as SvcContainer<object, object>;
    return this;
  }

  interceptAll(interceptor: Interceptor): this;
  interceptAll(middleware: ExpressMiddleware): this;
  interceptAll(interceptor: Interceptor): this {
    this.unbuilt('interceptAll');
    this.before.push(checkFunction(interceptor, 'interceptAll'));
    return this;
  }

  intercept(map: InterceptorMap): this;
  intercept(map: MiddlewareMap): this;
  intercept(map: InterceptorMap): this {
    this.unbuilt('intercept');
    this.beforeMaps.push(checkMap(map, 'intercept'));
    return this;
  }

  interceptAllAfter(interceptor: Interceptor): this;
  interceptAllAfter(middleware: ExpressMiddleware): this;
  interceptAllAfter(interceptor: Interceptor): this {
    this.unbuilt('interceptAllAfter');
    this.after.push(checkFunction(interceptor, 'interceptAllAfter'));
    return this;
  }

  interceptAfter(map: InterceptorMap): this;
  interceptAfter(map: MiddlewareMap): this;
  interceptAfter(map: InterceptorMap): this {
    this.unbuilt('interceptAfter');
    this.afterMaps.push(checkMap(map, 'interceptAfter'));
    return this;
  }

  /** `{ <error name>: <status> }`: a thrown error with that `name` is answered with that status. */
  withErrors(statuses: Record<string, number>): this {
    for (const [name, status] of Object.entries(statuses)) {
      if (!Number.isInteger(status) || status < 400 || status > 599) {
        // '404' from a JSON or YAML file is the usual slip: say it is a string, and what to write.
        const got = typeof status === 'string' ? `the string ${JSON.stringify(status)}${/^\d+$/.test(status) ? `; write ${status as string} without quotes` : ''}` : String(status);
        throw new RangeError(`withErrors: the status for ${name} must be an integer from 400 to 599, got ${got}`);
      }
    }
    this.unbuilt('withErrors');
    this.statuses = { ...this.statuses, ...statuses };
    return this;
  }

  /** The Express app, built on first use; mount it in another app or hand it to supertest. */
  get app(): SvcApp {
    this.built ??= this.build();
    return this.built as SvcApp;
  }

  handler(): SvcApp {
    return this.app;
  }

  /** An OpenAPI 3.1 description of the routes (operationId `<instance>.<method>`). */
  openapi(): RoutesOpenApi {
    this.description ??= routesOpenApi(this.routes());
    return structuredClone(this.description);
  }

  /** Listens on 127.0.0.1 by default; resolves to the server once it listens. */
  listen(port: number, host = '127.0.0.1'): Promise<Server> {
    if (typeof port !== 'number' || !Number.isInteger(port)) throw new TypeError(`listen: port must be an integer, got ${typeof port === 'number' ? port : typeof port}`);
    if (port < 0 || port > 65535) throw new RangeError(`listen: port must be from 0 to 65535, got ${port}`);
    const app = this.app;
    return new Promise((resolve, reject) => {
      const server = app.listen(port, host);
      server.once('listening', () => resolve(server));
      server.once('error', reject);
    });
  }

  private routes(): SvcRoute[] {
    return this.table().routes;
  }

  private table(): RouteTable {
    if (!this.container) throw new Error('SvcApi: call from(container) first');
    this.routeTable ??= collectRoutes(this.container.services() as Record<string, object>, this.container.servicesWithoutRoutes());
    return this.routeTable;
  }

  private unbuilt(what: string): this {
    if (this.built) throw new Error(`SvcApi: ${what}() after the app was built; configure first`);
    return this;
  }

  private build(): Express {
    const table = this.table();
    const routes = table.routes;
    const specificBefore = resolveInterceptors(this.beforeMaps, table);
    const specificAfter = resolveInterceptors(this.afterMaps, table);
    // Each interceptor is bound once (one given for many methods is in many lists); one registered
    // both before and after is bound as after, the placement a guard has to refuse.
    const registrations = new Map<Interceptor, Registration>();
    const register = (interceptors: Iterable<Interceptor>, registeredWith: Registration) => {
      for (const interceptor of interceptors) registrations.set(interceptor, registeredWith);
    };
    register(this.before, 'interceptAll');
    register([...specificBefore.values()].flat(), 'intercept');
    register([...specificAfter.values()].flat(), 'interceptAfter');
    register(this.after, 'interceptAllAfter');
    for (const [interceptor, registeredWith] of registrations) (interceptor as BindableInterceptor)[BIND_TO_API]?.(this.openapi(), table, registeredWith);

    const express = peerExpress<typeof import('express')>('SvcApi');
    const app = express();
    app.disable('x-powered-by');
    // Express 4 parses queries with qs ('extended') by default, 5 with 'simple': the same one on
    // both, so a method gets the same argument whichever Express the app has. (Mounted in an
    // Express 4 app, the query is the one the outer app parsed: Express 4 parses it once.)
    app.set('query parser', 'simple');
    // A method of this app's responses, as res.json is, rather than a property added to each one.
    (app.response as Response & SvcResponse).body = setBody;
    const json = express.json({ limit: this.options.bodyLimit ?? '100kb', strict: false });
    const byPath = new Map<string, SvcRoute>();
    for (const route of routes) {
      byPath.set(route.path, route);
      const chain: RequestHandler[] = [
        this.prepare(route),
        ...(readsBody(route.httpMethod) ? [json] : []),
        ...this.before.map((interceptor, index) => step(interceptor, `interceptAll #${index + 1}`)),
        ...specificBefore.get(route)!.map((interceptor) => step(interceptor, `intercept ${route.instance}.${route.method}`)),
        step(callService, `${route.instance}.${route.method}`),
        ...specificAfter.get(route)!.map((interceptor) => step(interceptor, `interceptAfter ${route.instance}.${route.method}`)),
        ...this.after.map((interceptor, index) => step(interceptor, `interceptAllAfter #${index + 1}`)),
        send,
      ];
      app[route.httpMethod.toLowerCase() as 'get'](route.path, ...chain);
    }
    app.use((req: Request, res: Response) => {
      const route = byPath.get(req.path);
      if (!route) return res.status(404).json({ error: 'NotFound', message: `no route ${req.method} ${req.path}` });
      const allow = route.httpMethod === 'GET' ? 'GET, HEAD' : route.httpMethod;
      res.status(405).set('Allow', allow).json({ error: 'MethodNotAllowed', message: `${req.path} answers ${allow}` });
    });
    app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
      if (res.headersSent) return next(error);
      // svcAcl's refusal with errors: 'next', its headers set: for the error handler of the app
      // this one is mounted in (or Express's own), unless withErrors maps its name.
      if (error instanceof SvcgateHttpError && !Object.hasOwn(this.statuses, error.name)) return next(error);
      const answer = answerFor(error, this.statuses);
      if (answer.status >= 500) (this.options.logError ?? defaultLog)(...logEntryFor(error));
      res.status(answer.status).json(answer.body);
    });
    return app;
  }

  /**
   * Per request: the route, the body slot that `res.body()` fills, and the hang backstop. A chain
   * that answered within this call (every step synchronous) cannot hang, so the backstop's timer
   * and listener are only set for one still open when the call returns.
   */
  private prepare(route: SvcRoute): RequestHandler {
    const timeoutMs = this.options.timeoutMs ?? 30_000;
    return (_req, res, next) => {
      res.locals.svc = { route, body: undefined } satisfies SvcRequestState;
      next();
      if (res.writableEnded) return;
      const timer = setTimeout(() => {
        if (!res.headersSent) res.status(503).json({ error: 'ServiceUnavailable', message: 'the request was not answered in time' });
      }, timeoutMs);
      // 'close' comes once per response; on() spares the wrapper once() builds.
      res.on('close', () => clearTimeout(timer));
    };
  }
}

/** `res.body(value)`: replaces the body to be sent. */
function setBody(this: SvcResponse, value: unknown): SvcResponse {
  (this.locals.svc as SvcRequestState).body = value;
  return this;
}

/** Calls the service method; synchronous when the method is, so a plain method costs no extra turn. */
function callService(req: Request, res: SvcResponse, next: NextFunction): Promise<void> | undefined {
  const state = res.locals.svc as SvcRequestState;
  const argument = serviceArgument(req, state);
  const answer = (value: unknown) => {
    res.body(state.resultFilter ? state.resultFilter(value) : value);
    next();
  };
  const result = state.route.call(argument, { auth: req.auth });
  if (isThenable(result)) return Promise.resolve(result).then(answer);
  answer(result);
  return undefined;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function send(_req: Request, res: Response): void {
  if (res.headersSent) return;
  const { body } = res.locals.svc as SvcRequestState;
  if (body === undefined) res.status(res.statusCode === 200 ? 204 : res.statusCode).end();
  else res.json(body);
}

/**
 * Runs one interceptor or the handler: whatever it throws or rejects with becomes an error for the
 * error map (SPEC 7.8), and a promise that settles without an answer and without next() is an
 * error rather than a hang. Only the first of these outcomes counts.
 */
function step(interceptor: Interceptor, label: string): RequestHandler {
  return (req, res, next) => {
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      next(error);
    };
    let result: unknown;
    try {
      result = interceptor(req, res as Response & SvcResponse, nextOf(settle, label));
    } catch (error) {
      return settle(asError(error, `${label} threw`));
    }
    if (result instanceof Promise) {
      result.then(
        () => {
          if (!settled && !res.headersSent) settle(new Error(`${label} neither answered nor called next()`));
        },
        (error: unknown) => settle(asError(error, `${label} rejected with`)),
      );
    }
  };
}

/**
 * The next() an interceptor calls. No argument, `undefined` or `null` means go on (Node's callback
 * convention, so `(err) => next(err)` works); anything else is an error, `0`, `''`, `false` and
 * Express's 'route' and 'router' included: Express would read those as "go on" or "skip the guards
 * left in this route", and a guard that means to fail must not let the request through.
 */
function nextOf(settle: (error?: Error) => void, label: string): NextFunction {
  return (error?: unknown) => settle(error === undefined || error === null ? undefined : asError(error, `${label} called next with`));
}

function checkFunction(value: unknown, method: string): Interceptor {
  if (typeof value !== 'function') throw new TypeError(`${method}: pass a function (req, res, next)`);
  return value as Interceptor;
}

/** A plain object only: a Map or an array has no entries Object.entries reads, and would intercept nothing. */
function checkMap(value: unknown, method: string): InterceptorMap {
  if (!isPlainObject(value)) throw new TypeError(`${method}: pass an object literal { <instance>: Class or { <method>: fn or Class } }`);
  return value as InterceptorMap;
}

/** The stack of an Error (its first line is the message; where it was thrown is what a 500 needs), else the message. */
function defaultLog(message: string, thrown: unknown): void {
  console.error(`svcgate: ${(thrown instanceof Error ? thrown.stack : undefined) ?? message}`);
}
