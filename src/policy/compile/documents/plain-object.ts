/**
 * Only object literals: a Date, Map or class instance passed in is a mistake, not a document.
 * Compares prototype depth rather than Object.prototype, so objects from another realm (vm, jest) pass.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value) as object | null;
  return prototype === null || Object.getPrototypeOf(prototype) === null;
}
