import { ConfigError } from '../policy/compile/config-error';

/** What checkListOwners reads of a route's description. */
export interface DescribedRoute {
  operationId: string;
  /** Set on a list method's route (`static lists`). */
  'x-acl-list'?: { item: string };
  parameters?: Record<string, unknown>[];
}

/** Types of a field a row's column cannot hold: one row holds one value of each owned field. */
const NOT_SCALAR = new Set(['array', 'object']);

/**
 * svcAcl's `owners` entries that no plan of a list method (`static lists`) could use, refused in
 * svcAcl's words: the compiler would name `x-acl-list` and `x-acl-binding` of a document the app
 * never wrote. An entry on the list method itself (a list is judged by its item's owners alone),
 * and an owned field of an item whose schema is an array or an object.
 */
export function checkListOwners(file: string, route: DescribedRoute, fields: Record<string, string>, listedBy: DescribedRoute | undefined): void {
  const at = `$.owners["${route.operationId}"]`;
  const list = route['x-acl-list'];
  if (list !== undefined) {
    const item = `the owners of the method it lists (${list.item})`;
    throw new ConfigError(file, at, `${route.operationId} is a list method (static lists), so the rows it returns are decided by ${item}, not by fields of its own`, `move the fields to the owners of the item method, ${orUnlist(route)}`);
  }
  if (listedBy === undefined) return;
  for (const field of Object.keys(fields)) {
    const type = (route.parameters?.find((parameter) => parameter.name === field)?.schema as { type?: unknown } | undefined)?.type;
    if (typeof type !== 'string' || !NOT_SCALAR.has(type)) continue;
    throw new ConfigError(file, `${at}.${field}`, `${field} of ${route.operationId} is an ${type} (its schema), but ${listedBy.operationId} lists its items, and a row holds one ${field}`, `give ${field} a scalar schema (z.number(), z.string(), z.boolean()), ${orUnlist(listedBy)}`);
  }
}

/** The other way out of either refusal: the list method (`<instance>.<method>`) taken out of `static lists`. */
function orUnlist(list: DescribedRoute): string {
  return `or take ${list.operationId.split('.')[1]} out of its class's static lists`;
}
