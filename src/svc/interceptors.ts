import { classChain } from './class-chain';
import { didYouMean } from './closest-name';
import type { RouteTable, SvcRoute } from './routes';
import type { SvcHttpResponse, SvcNext, SvcRequest } from './svc-http';

/** The response interceptors see: Express's, plus `body(value)` to replace the body to be sent. */
export type SvcResponse = SvcHttpResponse & { body: (value: unknown) => SvcResponse };

// Written as methods and taken by name: TypeScript compares a method's parameters both ways, so a
// function whose parameters are typed with @types/express's Request, Response and NextFunction
// (more members than these have) is accepted where an interceptor is.
/** An Express-style interceptor: answer the request, or call next() (with an error to fail it). */
export type Interceptor = { interceptor(req: SvcRequest, res: SvcResponse, next: SvcNext): unknown }['interceptor'];
/** An Express middleware given as an interceptor: `res.body()` is not in its type (an Express-typed `cors()`, say). */
export type ExpressMiddleware = { middleware(req: SvcRequest, res: SvcHttpResponse, next: SvcNext): unknown }['middleware'];
/** A class whose methods, named like service methods, are the interceptors of those methods. */
export type InterceptorClass = new () => object;
/** `{ <instance>: { <method>: fn or Class } }`, or `{ <instance>: Class }` for a whole service. */
export type InterceptorMap = Record<string, InterceptorClass | Record<string, Interceptor | InterceptorClass>>;
/** An interceptor map of Express-typed middleware (see ExpressMiddleware). */
export type MiddlewareMap = Record<string, InterceptorClass | Record<string, ExpressMiddleware | InterceptorClass>>;

export function isClass(value: unknown): value is InterceptorClass {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** An object literal (or `Object.create(null)`): what a map must be for its entries to be read at all. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The routes of one service, by method name. */
interface ServiceRoutes {
  instance: string;
  methods: Map<string, SvcRoute>;
  /** Why names of the container are no routes (see RouteTable). */
  unrouted: ReadonlyMap<string, string>;
}

/**
 * The interceptors each route gets from a list of maps, in the order the maps were given.
 * Configuration fails closed (SPEC 7.7): a name in a map, or a method of an interceptor class,
 * that matches no service method is an error, because the route its author meant would run unguarded.
 */
export function resolveInterceptors(maps: readonly InterceptorMap[], { routes, unrouted }: RouteTable): Map<SvcRoute, Interceptor[]> {
  const result = new Map<SvcRoute, Interceptor[]>(routes.map((route) => [route, []]));
  for (const map of maps) {
    for (const [instance, value] of Object.entries(map)) {
      const service = serviceRoutes(instance, routes, unrouted);
      for (const [route, interceptor] of interceptorsOf(service, value)) result.get(route)!.push(interceptor);
    }
  }
  return result;
}

function serviceRoutes(instance: string, routes: readonly SvcRoute[], unrouted: ReadonlyMap<string, string>): ServiceRoutes {
  const methods = new Map(routes.filter((route) => route.instance === instance).map((route) => [route.method, route]));
  if (methods.size === 0) {
    const why = unrouted.get(instance);
    if (why !== undefined) throw new Error(`SvcApi: the interceptor map names ${instance}, which has no routes to intercept: ${why}`);
    const instances = new Set(routes.map((route) => route.instance));
    throw new Error(`SvcApi: the interceptor map names ${instance}, which is no service of the container${didYouMean(instance, instances)}`);
  }
  return { instance, methods, unrouted };
}

/** ` (<why>)` for a method that is internal (see RouteTable), else the closest route's name, if any. */
function whyNoRoute(service: ServiceRoutes, method: string): string {
  const why = service.unrouted.get(`${service.instance}.${method}`);
  return why === undefined ? didYouMean(method, service.methods.keys()) : ` (${why})`;
}

function interceptorsOf(service: ServiceRoutes, value: unknown): Array<[SvcRoute, Interceptor]> {
  if (isClass(value)) return classInterceptors(service, value);
  // A bare function here would have no entries to read and intercept nothing, silently.
  if (!isPlainObject(value)) {
    throw new TypeError(`SvcApi: the interceptors of ${service.instance} must be a class or { <method>: fn or Class }, got ${describeValue(value)}; for every route use interceptAll or interceptAllAfter`);
  }
  return Object.entries(value).map(([method, interceptor]) => [routeNamed(service, method), methodInterceptor(service, method, interceptor)]);
}

/** `{ <instance>: Class }`: each method of the class intercepts the service method of the same name. */
function classInterceptors(service: ServiceRoutes, Class: InterceptorClass): Array<[SvcRoute, Interceptor]> {
  const { object, methods } = instantiate(Class, service);
  if (methods.length === 0) throw new Error(`SvcApi: interceptor class ${className(Class, service)} has no method to intercept ${service.instance} with; name its methods like the methods of ${service.instance}`);
  return methods.map((method) => [service.methods.get(method)!, boundMethod(object, method)]);
}

/** `{ <instance>: { <method>: fn or Class } }`: a class must have that method; its others are checked too. */
function methodInterceptor(service: ServiceRoutes, method: string, value: unknown): Interceptor {
  if (isClass(value)) {
    const { object, methods } = instantiate(value, service);
    if (!methods.includes(method)) {
      throw new Error(`SvcApi: interceptor class ${className(value, service)} has no method ${method} to intercept ${service.instance}.${method}${didYouMean(method, methods)}; add ${method} to the class`);
    }
    return boundMethod(object, method);
  }
  if (typeof value !== 'function') throw new TypeError(`SvcApi: the interceptor of ${service.instance}.${method} must be a function or a class, got ${describeValue(value)}`);
  return value as Interceptor;
}

function routeNamed(service: ServiceRoutes, method: string): SvcRoute {
  const route = service.methods.get(method);
  if (route) return route;
  throw new Error(`SvcApi: the interceptor map names ${service.instance}.${method}, which is no route${whyNoRoute(service, method)}`);
}

/**
 * A new instance of an interceptor class, and its interceptor methods. Each must be named like a
 * method of the service, even when others are: one misspelled method would leave its route
 * unguarded while the rest make the class look in use. A name of a service method must be a method
 * (not a getter or a field), or it would look like an interceptor and not run.
 */
function instantiate(Class: InterceptorClass, service: ServiceRoutes): { object: Record<string, unknown>; methods: string[] } {
  const object = new Class() as Record<string, unknown>;
  const properties = interceptorProperties(object);
  for (const [name, isMethod] of properties) {
    if (isMethod && !service.methods.has(name)) {
      throw new Error(
        `SvcApi: interceptor class ${className(Class, service)} has a method ${name}, but ${service.instance} has no route ${name}${whyNoRoute(service, name)}; ` +
          `rename it to the ${service.instance} method it intercepts, or start its name with _ if it is a helper`,
      );
    }
    if (!isMethod && service.methods.has(name)) throw new Error(`SvcApi: ${className(Class, service)}.${name} is named like a method of ${service.instance} but is not a method; write it as a method`);
  }
  return { object, methods: [...properties].filter(([, isMethod]) => isMethod).map(([name]) => name) };
}

/**
 * The names an interceptor could be looked up by (own and inherited, below the Object.prototype of
 * any realm: see classChain), each with whether it holds a function; the nearest holder wins, as
 * it does for `object[name]`.
 * `constructor` is not one, and neither is a name starting with `_`: those are the class's helpers,
 * by the rule that keeps `_x` methods of services from being routes, so they can intercept nothing.
 */
function interceptorProperties(object: object): Map<string, boolean> {
  const properties = new Map<string, boolean>();
  for (const holder of classChain(object)) {
    for (const name of Object.getOwnPropertyNames(holder)) {
      if (name === 'constructor' || name.startsWith('_') || properties.has(name)) continue;
      properties.set(name, typeof Object.getOwnPropertyDescriptor(holder, name)!.value === 'function');
    }
  }
  return properties;
}

function boundMethod(object: Record<string, unknown>, method: string): Interceptor {
  return (object[method] as Interceptor).bind(object);
}

/**
 * A class written inline in a map (`{ orderService: class { ... } }`) has no name, or takes the
 * key's, which reads like the service's; it is named by its methods instead.
 */
function className(Class: InterceptorClass, service: ServiceRoutes): string {
  if (Class.name !== '' && Class.name !== service.instance) return Class.name;
  const methods = Object.getOwnPropertyNames(Class.prototype).filter((name) => name !== 'constructor');
  return `written inline for ${service.instance} (its methods: ${methods.join(', ') || 'none'})`;
}

function describeValue(value: unknown): string {
  if (typeof value === 'function') return 'a function that is not a class';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return `a ${(value as object).constructor?.name ?? 'prototype-less'} object`;
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
