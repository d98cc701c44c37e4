import type { RequestAuth } from '../guard/guard-request';
import type { ArgumentSchema } from './argument-schema';
import { publicMethods } from './class-chain';
import { readInternal, readSchemas } from './class-statics';
import { httpMethodOf, type HttpMethod } from './http-method';
import { readLists } from './list-methods';
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
  schema: ArgumentSchema | undefined;
  /** The path of the route whose items this one lists (`static lists`), described as `x-acl-list`. */
  listOf?: string;
  call: (argument: unknown, context: SvcCallContext) => unknown;
}

/** The second argument of every service method: what SvcApi knows of the request beyond the argument. */
export interface SvcCallContext {
  /**
   * The caller, as svcAcl (or an interceptor of your own) set it on `req.auth`: `{ payload,
   * decision, filter, schemes }`, and on a list method (`static lists`) `list`, the plan of the
   * items the caller may see. Undefined on an unguarded route.
   */
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
    const internal = readInternal(service, instance);
    if (withoutRoutes.has(instance)) {
      unrouted.set(instance, `${instance} is registered with routes: false`);
      continue;
    }
    const schemas = readSchemas(service, instance);
    const methods = publicMethods(Object.getPrototypeOf(service) as object | null).filter((method) => {
      const listedBy = internal.get(method);
      if (listedBy !== undefined) unrouted.set(`${instance}.${method}`, `${method} is listed in ${listedBy}.internal`);
      return listedBy === undefined;
    });
    const lists = readLists(service, instance, new Set(methods));
    for (const method of methods) {
      const path = routePath(instance, method);
      const clash = paths.get(path);
      if (clash) throw new Error(`SvcApi: ${instance}.${method} and ${clash} both map to ${path}; rename one`);
      paths.set(path, `${instance}.${method}`);
      const fn = (service as Record<string, (argument: unknown, context: SvcCallContext) => unknown>)[method]!;
      const item = lists.get(method);
      const listOf = item === undefined ? {} : { listOf: routePath(instance, item) };
      routes.push({ instance, method, path, httpMethod: httpMethodOf(method), schema: schemas.get(method), ...listOf, call: (argument, context) => fn.call(service, argument, context) });
    }
  }
  return { routes, unrouted };
}

/** The path a service method is routed at: also the path a list method's `x-acl-list` names for its item. */
function routePath(instance: string, method: string): string {
  return `/api/${kebabCase(instance)}/${kebabCase(method)}`;
}
