/**
 * The canonical form of an attribute glob list, so that two lists that show the same fields are
 * written the same: `["*","id"]` and `["*"]` are one set, `["id","name","id"]` and `["name","id"]`
 * another. The meaning is filterAttributes' (src/guard/filter-attributes.ts), read as the set of
 * fields of an object that stay visible:
 * - a glob is a dotted path whose `*` segments match any key; it shows what it reaches and all below
 *   it, so `a.b` lies under `a`, `a` and `a.b` under `*`, and a trailing `.*` adds nothing (`a.*` is `a`);
 * - a `!` glob hides what it reaches, whatever grants it (negations win), and hides nothing that
 *   no glob shows;
 * - empty segments are dropped, as the filter drops them.
 * Rules that leave the set as it is are applied until none does: a glob under another glob goes,
 * a negation under another negation goes, a glob under a negation goes, and a negation that meets
 * no glob goes. The rest is sorted (`!` globs first, as `!` sorts before letters and `*`), so the
 * result of a list is the same whatever its order and duplicates.
 */
export function canonicalAttributes(globs: readonly string[]): string[] {
  let granted = unique(globs.filter((glob) => !glob.startsWith('!')).map((glob) => toPath(glob)));
  let denied = unique(globs.filter((glob) => glob.startsWith('!')).map((glob) => toPath(glob.slice(1))));
  // `!*` (or `!`) hides every field: nothing is shown.
  if (denied.some((path) => path.length === 0)) return [];
  granted = outermost(granted);
  denied = outermost(denied);
  granted = granted.filter((path) => !denied.some((negation) => covers(negation, path)));
  denied = denied.filter((negation) => granted.some((path) => overlaps(negation, path)));
  return [...granted.map((path) => toGlob(path)), ...denied.map((path) => `!${toGlob(path)}`)].sort();
}

export type GlobPath = readonly string[];

/** `a.b.*` -> ['a', 'b']: segments without empty ones and without trailing `*`, which reach no further. */
export function toPath(glob: string): GlobPath {
  const segments = glob.split('.').filter((segment) => segment !== '');
  while (segments.at(-1) === '*') segments.pop();
  return segments;
}

function toGlob(path: GlobPath): string {
  return path.length === 0 ? '*' : path.join('.');
}

/** True when everything `inner` reaches, `outer` reaches: `a` covers `a.b`, `*.b` covers `a.b.c`. */
function covers(outer: GlobPath, inner: GlobPath): boolean {
  return outer.length <= inner.length && outer.every((segment, index) => segment === '*' || segment === inner[index]);
}

/** True when some field is reached by both: `*.x` and `a` meet at `a.x`, `a` and `b` never. */
function overlaps(a: GlobPath, b: GlobPath): boolean {
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index++) if (a[index] !== '*' && b[index] !== '*' && a[index] !== b[index]) return false;
  return true;
}

/** The paths that no other path of the list covers (the list holds no path twice). */
function outermost(paths: readonly GlobPath[]): GlobPath[] {
  return paths.filter((path) => !paths.some((other) => other !== path && covers(other, path)));
}

function unique(paths: readonly GlobPath[]): GlobPath[] {
  const seen = new Set<string>();
  return paths.filter((path) => {
    const key = JSON.stringify(path);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
