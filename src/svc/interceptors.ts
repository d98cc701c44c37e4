import type { NextFunction, Request, Response } from 'express';
import type { SvcRoute } from './routes';

/** The response interceptors see: Express's, plus `body(value)` to replace the body to be sent. */
export type SvcResponse = Response & { body: (value: unknown) => SvcResponse };

/** An Express-style interceptor: answer the request, or call next() (with an error to fail it). */
export type Interceptor = (req: Request, res: SvcResponse, next: NextFunction) => unknown;
/** A class whose methods, named like service methods, are the interceptors of those methods. */
export type InterceptorClass = new () => object;
/** `{ <instance>: { <method>: fn or Class } }`, or `{ <instance>: Class }` for a whole service. */
export type InterceptorMap = Record<string, InterceptorClass | Record<string, Interceptor | InterceptorClass>>;

export function isClass(value: unknown): value is InterceptorClass {
  return typeof value === 'function' && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/**
 * The interceptors each route gets from a list of maps, in the order the maps were given.
 * A name that matches no service or method is an error: a typo must not leave a route unguarded.
 */
export function resolveInterceptors(maps: readonly InterceptorMap[], routes: readonly SvcRoute[]): Map<SvcRoute, Interceptor[]> {
  const result = new Map<SvcRoute, Interceptor[]>(routes.map((route) => [route, []]));
  const add = (route: SvcRoute, interceptor: Interceptor) => result.get(route)!.push(interceptor);
  for (const map of maps) {
    for (const [instance, value] of Object.entries(map)) {
      const ofService = routes.filter((route) => route.instance === instance);
      if (ofService.length === 0) throw new Error(`SvcApi: the interceptor map names ${instance}, which is no service of the container`);
      if (isClass(value)) {
        const object = new value() as Record<string, unknown>;
        const named = ofService.filter((route) => typeof object[route.method] === 'function');
        if (named.length === 0) throw new Error(`SvcApi: ${value.name} has no method named like a method of ${instance}`);
        named.forEach((route) => add(route, (object[route.method] as Interceptor).bind(object)));
        continue;
      }
      for (const [method, interceptor] of Object.entries(value)) {
        const route = ofService.find((candidate) => candidate.method === method);
        if (!route) throw new Error(`SvcApi: the interceptor map names ${instance}.${method}, which is no route`);
        add(route, methodInterceptor(interceptor, instance, method));
      }
    }
  }
  return result;
}

function methodInterceptor(value: unknown, instance: string, method: string): Interceptor {
  if (isClass(value)) {
    const object = new value() as Record<string, unknown>;
    if (typeof object[method] !== 'function') throw new Error(`SvcApi: ${value.name} has no method ${method} to intercept ${instance}.${method}`);
    return (object[method] as Interceptor).bind(object);
  }
  if (typeof value !== 'function') throw new TypeError(`SvcApi: the interceptor of ${instance}.${method} must be a function or a class`);
  return value as Interceptor;
}
