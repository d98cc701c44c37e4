import type { ZodType } from 'zod';
import type { RequestAuth } from '../auth/guard-request';
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

/** Every public method of every service, own and inherited, as a route. */
export function collectRoutes(services: Record<string, object>): SvcRoute[] {
  const routes: SvcRoute[] = [];
  const paths = new Map<string, string>();
  for (const [instance, service] of Object.entries(services)) {
    const schemas = readSchemas(service);
    for (const method of publicMethods(service)) {
      const path = `/api/${kebabCase(instance)}/${kebabCase(method)}`;
      const clash = paths.get(path);
      if (clash) throw new Error(`SvcApi: ${instance}.${method} and ${clash} both map to ${path}; rename one`);
      paths.set(path, `${instance}.${method}`);
      const fn = (service as Record<string, (argument: unknown, context: SvcCallContext) => unknown>)[method]!;
      routes.push({ instance, method, path, httpMethod: httpMethodOf(method), schema: schemas[method], call: (argument, context) => fn.call(service, argument, context) });
    }
  }
  return routes;
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
