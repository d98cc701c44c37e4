/**
 * Keeps the parts of `data` that the granted attribute globs allow, in accesscontrol's notation:
 * `*` everything, `name` or `address.city` only that, `!password` or `!address.zip` never that.
 * Negations win over grants. Arrays are filtered element by element.
 */
export function filterAttributes<T>(data: T, attributes: readonly string[]): T {
  const { granted, denied } = parsedGlobs(attributes);
  return filterValue(data, granted, denied) as T;
}

interface Globs {
  granted: string[][];
  denied: string[][];
}

// Cached decisions share one frozen attribute list between requests, so it is parsed once; a
// list that is not frozen could still change, and is parsed on every call.
const parsed = new WeakMap<readonly string[], Globs>();

function parsedGlobs(attributes: readonly string[]): Globs {
  const known = parsed.get(attributes);
  if (known) return known;
  const globs: Globs = { granted: [], denied: [] };
  for (const glob of attributes) {
    if (glob.startsWith('!')) globs.denied.push(toPath(glob.slice(1)));
    else globs.granted.push(toPath(glob));
  }
  if (Object.isFrozen(attributes)) parsed.set(attributes, globs);
  return globs;
}

function toPath(glob: string): string[] {
  return glob.split('.').filter((segment) => segment !== '');
}

/** `granted` and `denied` are paths relative to `value`; `[]` in granted means all of it. */
function filterValue(value: unknown, granted: string[][], denied: string[][]): unknown {
  if (Array.isArray(value)) return value.map((item) => filterValue(item, granted, denied));
  if (typeof value !== 'object' || value === null) return granted.length > 0 ? value : undefined;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const childGranted = below(granted, key);
    if (childGranted.length === 0) continue;
    const childDenied = below(denied, key);
    if (childDenied.some((path) => path.length === 0)) continue;
    const child = (value as Record<string, unknown>)[key];
    const everything = childDenied.length === 0 && childGranted.some((path) => path.length === 0);
    const kept = everything ? child : filterValue(child, childGranted, childDenied);
    if (kept !== undefined) result[key] = kept;
  }
  return result;
}

const EVERYTHING: string[] = [];

/** The paths that reach inside `key`: `*` matches any key, and an empty path covers everything below. */
function below(paths: string[][], key: string): string[][] {
  const inside: string[][] = [];
  for (const path of paths) {
    if (path.length === 0) inside.push(EVERYTHING);
    else if (path[0] === '*' || path[0] === key) inside.push(path.length === 1 ? EVERYTHING : path.slice(1));
  }
  return inside;
}
