/** A JSON value's type as a collector reading it sees it. */
export function jsonType(value: unknown): 'null' | 'array' | 'object' | 'string' | 'number' | 'boolean' | 'undefined' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value as 'object' | 'string' | 'number' | 'boolean' | 'undefined';
}

/**
 * Where `actual` does not have what `reference` has, recursively: a field missing, or of another
 * JSON type; an array's elements are each compared with the reference's first. `skip` names paths
 * (`$.a.b`, `*` for any one key, `[*]` for any element) left out on purpose, each for a stated reason.
 */
export function shapeDifferences(reference: unknown, actual: unknown, skip: readonly string[] = [], path = '$'): string[] {
  const expected = jsonType(reference);
  const found = jsonType(actual);
  if (expected !== found) return [`${path}: ${expected} in the reference, ${found} here`];
  if (expected === 'array') {
    const [first] = reference as unknown[];
    if (first === undefined) return [];
    const elements = actual as unknown[];
    if (elements.length === 0) return [`${path}: an empty array, where the reference has elements`];
    return elements.flatMap((element, index) => shapeDifferences(first, element, skip, `${path}[${index}]`));
  }
  if (expected !== 'object') return [];
  const fields = actual as Record<string, unknown>;
  return Object.entries(reference as Record<string, unknown>).flatMap(([key, value]) => {
    const at = `${path}.${key}`;
    if (skip.some((pattern) => matches(pattern, at))) return [];
    if (!(key in fields)) return [`${at}: missing (the reference has a ${jsonType(value)})`];
    return shapeDifferences(value, fields[key], skip, at);
  });
}

function matches(pattern: string, path: string): boolean {
  const parts = pattern.split('.');
  const segments = path.replace(/\[\d+\]/g, '[*]').split('.');
  return parts.length === segments.length && parts.every((part, index) => part === '*' || part === segments[index]);
}
