/**
 * Whether a plan can never change: frozen down to its value lists, with data properties only (a getter can answer
 * differently each time, frozen or not). What is built from such a plan can be kept for the next call.
 */
export function frozenPlan(list: unknown): list is object {
  if (!frozenData(list, ['kind', 'anyOf'])) return false;
  const anyOf = (list as { anyOf: unknown }).anyOf;
  if (!Array.isArray(anyOf) || !frozenData(anyOf, Object.keys(anyOf))) return false;
  return anyOf.every((entry: unknown) => {
    if (!frozenData(entry, Object.keys(entry as object))) return false;
    return Object.values(entry as object).every((values: unknown) => Array.isArray(values) && frozenData(values, Object.keys(values)));
  });
}

function frozenData(value: unknown, keys: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null || !Object.isFrozen(value)) return false;
  return keys.every((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    return descriptor !== undefined && 'value' in descriptor;
  });
}
