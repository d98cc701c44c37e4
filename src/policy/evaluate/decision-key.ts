import type { PolicyInput } from './evaluator';
import { isPlainObject } from '../compile/documents/load-document';

/**
 * The decision cache key of an input: everything the policy reads (`operation`, `role`, `params`,
 * `claims`, `checks`, `scopes`; it reads nothing else). Every part says where it ends (a tag, a
 * count or a length before it), so one key can be read back in only one way and two inputs the
 * policy would see differently never share it. It costs a fifth of JSON.stringify, which was most
 * of a cache hit.
 *
 * Only the shapes the adapters build are keyed: strings, plain objects of string lists (null
 * allowed in `params`), booleans in `checks`, a string list in `scopes`, and a role that JSON can
 * carry. Anything else (class instances, values with toJSON, undefined entries) gives `undefined`:
 * the input is decided but not cached, because its JSON text, which is what the policy sees, might
 * not follow from the key.
 */
export function decisionKey(input: PolicyInput): string | undefined {
  if (typeof input.operation !== 'string') return undefined;
  const role = roleKey(input.role);
  const params = recordKey(input.params, paramValues);
  const claims = recordKey(input.claims, claimValues);
  const checks = recordKey(input.checks, checkResult);
  const scopes = input.scopes === undefined ? 'u' : stringList(input.scopes, false);
  if (role === undefined || params === undefined || claims === undefined || checks === undefined || scopes === undefined) return undefined;
  return `${text(input.operation)}${role}${params}${claims}${checks}${scopes}`;
}

function text(value: string): string {
  return `${value.length}:${value}`;
}

function count(items: { length: number }): string {
  return `${items.length}#`;
}

function roleKey(role: unknown): string | undefined {
  if (role === undefined) return 'u';
  if (typeof role === 'string') return `s${text(role)}`;
  if (isPlainArray(role) && role.every((name) => typeof name === 'string')) return `a${count(role)}${role.map(text).join('')}`;
  // Other claim types are denied by the policy; their JSON text keys them exactly.
  return isJsonValue(role) ? `j${text(JSON.stringify(role))}` : undefined;
}

/** A plain object, its entries in key order; `item` keys one value, or gives undefined for a shape it does not key. */
function recordKey(record: object | undefined, item: (value: unknown) => string | undefined): string | undefined {
  if (record === undefined) return 'u';
  if (!isKeyableObject(record)) return undefined;
  const names = Object.keys(record);
  let key = `o${count(names)}`;
  for (const name of names) {
    const part = item(record[name]);
    if (part === undefined) return undefined;
    key += `${text(name)}${part}`;
  }
  return key;
}

function paramValues(list: unknown): string | undefined {
  return stringList(list, true);
}

function claimValues(list: unknown): string | undefined {
  return stringList(list, false);
}

function stringList(list: unknown, allowNull: boolean): string | undefined {
  if (!isPlainArray(list)) return undefined;
  let key = count(list);
  for (const item of list) {
    if (typeof item === 'string') key += text(item);
    else if (item === null && allowNull) key += 'n';
    else return undefined;
  }
  return key;
}

function checkResult(flag: unknown): string | undefined {
  return typeof flag === 'boolean' ? (flag ? 't' : 'f') : undefined;
}

function isPlainArray(value: unknown): value is unknown[] {
  return Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype && !('toJSON' in value);
}

/** An object literal whose JSON text is its own entries: no toJSON anywhere on its prototype chain. */
function isKeyableObject(value: unknown): value is Record<string, unknown> {
  return isPlainObject(value) && !('toJSON' in value);
}

/** What JSON.parse can give: such a value's JSON text is exactly what the policy will see. */
function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  if (value === null || typeof value === 'boolean' || typeof value === 'string') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return isPlainArray(value) && value.every((item) => isJsonValue(item, depth + 1));
  return isKeyableObject(value) && Object.values(value).every((item) => isJsonValue(item, depth + 1));
}
