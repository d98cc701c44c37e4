import type { ZodType } from 'zod';
import type { RequestAuth } from '../auth/guard-request';
import { ConfigError } from '../policy/compile/config-error';
import { didYouMean } from './closest-name';
import { httpMethodOf, type HttpMethod } from './http-method';
import { kebabCase } from './words';

export interface SvcRoute {
  /** `userService` */
  instance: string;
  /** `createUser` */
  method: string;
  /** `/api/user-service/create-user` */
  path: string;
  httpMethod: HttpMethod;
  /** The zod schema of the argument, from the class's `static schemas = { createUser: ... }`. */
  schema: ZodType | undefined;
  call: (argument: unknown, context: SvcCallContext) => unknown;
}

/** The second argument of every service method: what SvcApi knows of the request beyond the argument. */
export interface SvcCallContext {
  /** The caller, as svcAcl (or an interceptor of your own) set it on `req.auth`: `{ payload, decision, filter }`. Undefined on an unguarded route. */
  auth: RequestAuth | undefined;
}

/** The routes of a container's services, and why the names that might have been routes are not. */
export interface RouteTable {
  routes: SvcRoute[];
  /**
   * `<instance>` for a service registered with `routes: false`, `<instance>.<method>` for a method
   * its class lists in `internal`: what an interceptor map naming it is told.
   */
  unrouted: ReadonlyMap<string, string>;
}

/**
 * Every public method of every service, own and inherited, as a route; except the services
 * registered with `routes: false` and the methods a class lists in `static internal`.
 */
export function collectRoutes(services: Record<string, object>, withoutRoutes: ReadonlySet<string>): RouteTable {
  const routes: SvcRoute[] = [];
  const unrouted = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const [instance, service] of Object.entries(services)) {
    const methods = publicMethods(service);
    const internal = readInternal(service, instance, methods);
    if (withoutRoutes.has(instance)) {
      unrouted.set(instance, `${instance} is registered with routes: false`);
      continue;
    }
    const schemas = readSchemas(service);
    for (const method of methods) {
      if (internal.has(method)) {
        unrouted.set(`${instance}.${method}`, `${method} is listed in ${className(service, instance)}.internal`);
        continue;
      }
      const path = `/api/${kebabCase(instance)}/${kebabCase(method)}`;
      const clash = paths.get(path);
      if (clash) throw new Error(`SvcApi: ${instance}.${method} and ${clash} both map to ${path}; rename one`);
      paths.set(path, `${instance}.${method}`);
      const fn = (service as Record<string, (argument: unknown, context: SvcCallContext) => unknown>)[method]!;
      routes.push({ instance, method, path, httpMethod: httpMethodOf(method), schema: schemas[method], call: (argument, context) => fn.call(service, argument, context) });
    }
  }
  return { routes, unrouted };
}

/**
 * `static internal = ['resetAll']`: methods other services call that are no routes. TypeScript's
 * `private` and `protected` are gone at run time, so such methods are routes unless listed here
 * (or named with `#` or `_`). Fails closed: a name that is no public method (a typo) would leave
 * the method it meant a route.
 */
function readInternal(service: object, instance: string, methods: readonly string[]): ReadonlySet<string> {
  const internal = (service.constructor as { internal?: unknown }).internal;
  const name = className(service, instance);
  const file = `<class ${name}>`;
  if (internal === undefined) return new Set();
  if (!Array.isArray(internal) || !internal.every((entry) => typeof entry === 'string')) {
    throw new ConfigError(file, '$.internal', 'internal must be a list of method names', `write static readonly internal = ['${methods[0] ?? 'resetAll'}']`);
  }
  internal.forEach((listed: string, index) => {
    if (methods.includes(listed)) return;
    throw new ConfigError(file, `$.internal[${index}]`, `${listed} is no public method of ${name}, so listing it keeps no route out${didYouMean(listed, methods)}`, 'name a method of the class (its spelling, in camel case)');
  });
  return new Set(internal as string[]);
}

/** A class written inline in a map (`{ auditService: class { ... } }`) may have no name: the instance's then. */
function className(service: object, instance: string): string {
  return service.constructor.name || instance;
}

function publicMethods(service: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(service); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === 'constructor' || name.startsWith('_') || name.startsWith('#')) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
      if (typeof descriptor.value === 'function') names.add(name);
    }
  }
  return [...names];
}

function readSchemas(service: object): Record<string, ZodType> {
  const schemas = (service.constructor as { schemas?: unknown }).schemas ?? {};
  for (const [method, schema] of Object.entries(schemas)) {
    if (typeof (schema as { safeParse?: unknown })?.safeParse !== 'function') {
      throw new TypeError(`SvcApi: ${service.constructor.name}.schemas.${method} is not a zod schema`);
    }
  }
  return schemas as Record<string, ZodType>;
}
