/**
 * Keeps the parts of `data` that the granted attribute globs allow, in accesscontrol's notation:
 * `*` everything, `name` or `address.city` only that, `!password` or `!address.zip` never that.
 * Negations win over grants. Arrays are filtered element by element.
 */
export function filterAttributes<T>(data: T, attributes: readonly string[]): T {
  const granted = attributes.filter((glob) => !glob.startsWith('!')).map(toPath);
  const denied = attributes.filter((glob) => glob.startsWith('!')).map((glob) => toPath(glob.slice(1)));
  return filterValue(data, granted, denied) as T;
}

function toPath(glob: string): string[] {
  return glob.split('.').filter((segment) => segment !== '');
}

/** `granted` and `denied` are paths relative to `value`; `[]` in granted means all of it. */
function filterValue(value: unknown, granted: string[][], denied: string[][]): unknown {
  if (Array.isArray(value)) return value.map((item) => filterValue(item, granted, denied));
  if (typeof value !== 'object' || value === null) return granted.length > 0 ? value : undefined;
  const result: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const childGranted = below(granted, key);
    const childDenied = below(denied, key);
    if (childGranted.length === 0 || childDenied.some((path) => path.length === 0)) continue;
    const everything = childGranted.some((path) => path.length === 0) && childDenied.length === 0;
    const kept = everything ? child : filterValue(child, childGranted, childDenied);
    if (kept !== undefined) result[key] = kept;
  }
  return result;
}

/** The paths that reach inside `key`: `*` matches any key, and an empty path covers everything below. */
function below(paths: string[][], key: string): string[][] {
  return paths.flatMap((path) => {
    if (path.length === 0) return [[]];
    const [head, ...rest] = path;
    return head === '*' || head === key ? [rest] : [];
  });
}
