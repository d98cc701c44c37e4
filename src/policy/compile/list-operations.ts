import { z } from 'zod';
import { ConfigError, jsonPath } from './config-error';
import { operationKey, type OperationFacts, type ParamSpec } from './data-document';
import { parseWith } from './parse-with';
import { quoted } from './quoted-text';

/** An operation's `x-acl-list` as written, and where. */
export interface ListDeclaration {
  key: string;
  value: unknown;
  at: readonly (string | number)[];
}

const listSchema = z
  .object({ item: z.string({ error: 'item must be the path of the item operation, e.g. /orders/{orderId}' }).startsWith('/', { error: 'item must be a path of this document, starting with /' }) })
  .strict();

// Quoted: YAML's flow style reads the braces of an unquoted /orders/{orderId} as a mapping and fails.
const LIST_FIX = "write x-acl-list: { item: '/orders/{orderId}' }, naming the path whose GET reads one item";
/** Column types: a row's field holds one value, so an owned array or object parameter has no column to compare. */
const SCALAR_TYPES = new Set(['integer', 'number', 'boolean', 'string', 'unknown']);

/**
 * Turns each operation that declares `x-acl-list` into a list operation of its item (SPEC 11): it
 * is decided with the item's grants (resource and `read`), its token must meet both operations'
 * scope requirements, and it carries the item's owned parameters for the policy's plan. Every
 * declaration that could make a plan differ from the per-item decisions is a ConfigError.
 */
export function linkListOperations(operations: Record<string, OperationFacts>, declarations: readonly ListDeclaration[], file: string, beside: ReadonlyMap<string, string[][]>): void {
  const listing = new Set(declarations.map(({ key }) => key));
  for (const { key, value, at } of declarations) {
    const where = jsonPath([...at, 'x-acl-list']);
    const list = operations[key]!;
    const { item: itemPath } = parseWith(listSchema, value, file, [...at, 'x-acl-list'], LIST_FIX);
    const itemKey = operationKey('get', itemPath);
    const item = Object.hasOwn(operations, itemKey) ? operations[itemKey] : undefined;
    if (list.method !== 'GET') throw new ConfigError(file, where, `x-acl-list is on ${key}, but only a GET operation lists items`, 'move x-acl-list to the GET operation that returns the list');
    if (item === undefined) throw new ConfigError(file, where, `x-acl-list names ${quoted(itemPath)}, which has no GET operation in this document`, `name the path whose GET reads one item; the document's GET paths: ${getPaths(operations).join(', ') || '(none)'}`);
    if (listing.has(itemKey)) throw new ConfigError(file, where, `x-acl-list names ${itemPath}, whose GET is itself a list operation`, 'name the path whose GET reads one item');
    if (!list.secured || !item.secured) {
      const open = list.secured ? itemKey : key;
      throw new ConfigError(file, where, `${open} is not secured by the bearer scheme, so no plan can be decided for ${key}`, `give ${open} a security requirement with the bearer scheme`);
    }
    refuseUnmetSchemes(key, itemKey, beside, file, where);
    const own = Object.values(list.params).find((param) => param.owned);
    if (own !== undefined) {
      throw new ConfigError(file, where, `${key} has an owned ${own.in} parameter ${own.name} and x-acl-list`, 'a list operation is judged by its items alone: drop x-acl-binding from the parameter, or drop x-acl-list');
    }
    operations[key] = { ...list, resource: item.resource, action: 'read', scopes: bothMet(list.scopes, item.scopes), list: { item: itemKey, params: ownedOf(item, itemKey, file, where) } };
  }
}

/**
 * A caller who met one of the list operation's requirements with the bearer scheme must meet one of the item's too:
 * an item that also needs another scheme (`{ bearer: [], apiKey: [] }`) the list does not ask for would answer that
 * caller 401 one item at a time, while the list showed it every item the token owns.
 */
function refuseUnmetSchemes(key: string, itemKey: string, beside: ReadonlyMap<string, string[][]>, file: string, where: string): void {
  const item = beside.get(itemKey) ?? [];
  for (const others of beside.get(key) ?? []) {
    if (item.some((needed) => needed.every((name) => others.includes(name)))) continue;
    const needs = item.map((needed) => needed.join(' and ')).join(', or ');
    throw new ConfigError(
      file,
      where,
      `${itemKey} needs ${needs} beside the bearer scheme, which ${key} does not${others.length > 0 ? ` (it asks for ${others.join(' and ')})` : ''}: the list would show items its callers cannot read one by one`,
      `give ${key} the item's security requirement (the bearer scheme with ${needs})`,
    );
  }
}

/** The item's owned parameters, each a scalar with a name no other owned parameter has (the plan is keyed by name). */
function ownedOf(item: OperationFacts, itemKey: string, file: string, where: string): Record<string, ParamSpec> {
  const owned: Record<string, ParamSpec> = {};
  const names = new Set<string>();
  for (const [key, param] of Object.entries(item.params)) {
    if (!param.owned) continue;
    if (!SCALAR_TYPES.has(param.type)) {
      throw new ConfigError(file, where, `the item ${itemKey} owns its ${param.in} parameter ${param.name} of type ${param.type}, which a row's column cannot hold`, `give ${param.name} a scalar schema (integer, number, boolean or string), or drop x-acl-list`);
    }
    if (names.has(param.name)) {
      throw new ConfigError(file, where, `the item ${itemKey} owns two parameters named ${param.name}`, 'rename one of them: a plan names each owned parameter by its name');
    }
    names.add(param.name);
    owned[key] = param;
  }
  return owned;
}

/**
 * Scope alternatives met exactly when both lists are met: each pair's union. Empty means no scope
 * is needed (scope-requirements.ts), so an empty side leaves the other.
 */
function bothMet(first: string[][], second: string[][]): string[][] {
  if (first.length === 0) return second;
  if (second.length === 0) return first;
  const alternatives = new Map<string, string[]>();
  for (const a of first) {
    for (const b of second) {
      const scopes = [...new Set([...a, ...b])].sort();
      alternatives.set(JSON.stringify(scopes), scopes);
    }
  }
  return [...alternatives.values()];
}

function getPaths(operations: Record<string, OperationFacts>): string[] {
  return Object.values(operations)
    .filter((operation) => operation.method === 'GET')
    .map((operation) => operation.path);
}
