import { resourceKey } from './acl-declaration';
import { isPlainObject } from './documents/load-document';

/**
 * `over` merged onto `under`, as @oas-tools/auth 1.1.0 merges the `use` config's declaration onto
 * the one in `x-acl-config`: roles, resources and actions merge key by key, anything else (an
 * attribute list, `$extend`) is taken from `over`. Resources merge by the path they name, however
 * each side writes it (`users/:id`, `/users/{id}`).
 */
export function mergeDeclarations(under: unknown, over: unknown): unknown {
  return merged(under, over, 0);
}

/** Depth 0: roles; 1: a role's resources (and `$extend`); 2: a resource's actions. */
function merged(under: unknown, over: unknown, depth: number): unknown {
  if (!isPlainObject(under) || !isPlainObject(over) || depth > 2) return over;
  const [low, high] = depth === 1 ? [byResource(under), byResource(over)] : [under, over];
  const keys = [...new Set([...Object.keys(low), ...Object.keys(high)])];
  // fromEntries defines each key, so that a key named __proto__ stays a key (and is refused as a role name later).
  return Object.fromEntries(keys.map((key) => [key, !Object.hasOwn(high, key) ? low[key] : Object.hasOwn(low, key) ? merged(low[key], high[key], depth + 1) : high[key]]));
}

/** A role's entries keyed by the resource they name; left as written when two name the same one, so that the declaration's own check reports it. */
function byResource(role: Record<string, unknown>): Record<string, unknown> {
  const entries = Object.entries(role).map(([key, value]) => [key.startsWith('$') ? key : resourceKey(key), value] as const);
  return new Set(entries.map(([key]) => key)).size === entries.length ? Object.fromEntries(entries) : role;
}
