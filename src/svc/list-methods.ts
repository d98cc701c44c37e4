import { ConfigError } from '../policy/compile/config-error';
import { classesOf, refuseNonStatic } from './class-statics';
import { didYouMean } from './closest-name';
import { httpMethodOf } from './http-method';

const FIX = "write static readonly lists = { listOrders: 'getOrder' }: the list method, then the method that reads one item";

/**
 * `static lists = { listOrders: 'getOrder' }`: `listOrders` returns the items `getOrder` reads one
 * at a time, so svcAcl decides it with `getOrder`'s grants and owners and hands the method the
 * plan of the items the caller may see (`auth.list`, SPEC 11); its route is described with
 * `x-acl-list`. The lists of a class and the classes it extends add up, the nearest class's entry
 * of a method winning. Fails closed at start-up: either name no routed GET method of the service
 * (a typo, an `internal` method, a name routed as POST), an item that is itself a list, or a
 * `lists` that is not `static`, would leave a list decided by other grants than its items'.
 * Returns list method -> item method.
 */
export function readLists(service: object, instance: string, routed: ReadonlySet<string>): ReadonlyMap<string, string> {
  refuseNonStatic(service, instance, 'lists', looksLikeLists, `${FIX} (static: SvcApi reads the class, not its instances)`);
  const lists = new Map<string, string>();
  // Where each entry was declared, for the errors of the check across entries below.
  const declaredIn = new Map<string, string>();
  for (const { Class, name } of classesOf(service, instance)) {
    if (!Object.hasOwn(Class, 'lists') || Class.lists === undefined) continue;
    const file = `<class ${name}>`;
    const declared = Class.lists;
    if (!isNameMap(declared)) throw new ConfigError(file, '$.lists', 'lists must map list method names to item method names', FIX);
    for (const [list, item] of Object.entries(declared)) {
      if (lists.has(list)) continue;
      checkMethod(list, 'list', routed, file, instance);
      checkMethod(item, 'item', routed, file, instance, list);
      if (item === list) throw new ConfigError(file, `$.lists.${list}`, `${list} names itself as its item`, 'name the method that reads one item, e.g. getOrder');
      lists.set(list, item);
      declaredIn.set(list, file);
    }
  }
  for (const [list, item] of lists) {
    if (lists.has(item)) throw new ConfigError(declaredIn.get(list)!, `$.lists.${list}`, `${list} lists the items of ${item}, which is itself a list method`, 'name the method that reads one item, e.g. getOrder');
  }
  return lists;
}

/** A list or item method must be a route of the service answering GET (an item is read; a list only lists what can be read). */
function checkMethod(method: string, role: 'list' | 'item', routed: ReadonlySet<string>, file: string, instance: string, list?: string): void {
  const at = role === 'list' ? `$.lists.${method}` : `$.lists.${list}`;
  if (!routed.has(method)) {
    throw new ConfigError(file, at, `${method} is no route of ${instance}${didYouMean(method, routed)}`, `name a public method of the class that is a route (not in internal), for the ${role === 'list' ? 'list' : 'item it lists'}`);
  }
  if (httpMethodOf(method) !== 'GET') {
    throw new ConfigError(file, at, `${method} is routed as ${httpMethodOf(method)}, but a ${role === 'list' ? 'list method lists with' : 'listed item is read with'} GET`, `name a method whose first word is get, read, fetch, find or list (e.g. ${role === 'list' ? 'listOrders' : 'getOrder'})`);
  }
}

/** An object literal of names (a Map or an array has no entries Object.entries reads). */
function isNameMap(value: unknown): value is Record<string, string> {
  return Object.prototype.toString.call(value) === '[object Object]' && Object.values(value as object).every((item) => typeof item === 'string');
}

/** An instance field that is a `lists` meant for SvcApi; any other field of that name is the service's own business. */
function looksLikeLists(value: unknown): boolean {
  return isNameMap(value) && Object.keys(value).length > 0;
}
