import { toPath, type GlobPath } from './canonical-attributes';

/** An attribute glob list as the filter reads it: what it shows, and what it hides of that. */
interface Globs {
  granted: GlobPath[];
  denied: GlobPath[];
}

/** Stands for every key that no glob names, so that one branch decides them all. */
const OTHER_KEY = '\u0000other';

/**
 * True when every field that `inner` shows, `outer` shows too (the meaning of canonicalAttributes):
 * `["*"]` includes `["id"]`, `["*","!password"]` does not include `["*"]`. Walks the keys the
 * globs name, level by level, plus one key that none names; each level drops a segment, so the walk
 * ends, and globs that cannot reach a key leave its branch.
 */
export function includesAttributes(outer: readonly string[], inner: readonly string[]): boolean {
  return includes(parse(outer), parse(inner));
}

function parse(globs: readonly string[]): Globs {
  return {
    granted: globs.filter((glob) => !glob.startsWith('!')).map((glob) => toPath(glob)),
    denied: globs.filter((glob) => glob.startsWith('!')).map((glob) => toPath(glob.slice(1))),
  };
}

type Reach = 'none' | 'all' | 'some';

/** What the globs show here: nothing, everything below, or it depends on the keys below. */
function reach({ granted, denied }: Globs): Reach {
  if (granted.length === 0 || denied.some((path) => path.length === 0)) return 'none';
  return denied.length === 0 && granted.some((path) => path.length === 0) ? 'all' : 'some';
}

function includes(outer: Globs, inner: Globs): boolean {
  const innerReach = reach(inner);
  const outerReach = reach(outer);
  if (innerReach === 'none' || outerReach === 'all') return true;
  if (outerReach === 'none') return !showsAny(inner);
  return keysNamed(outer, inner).every((key) => includes(below(outer, key), below(inner, key)));
}

function showsAny(globs: Globs): boolean {
  const here = reach(globs);
  if (here !== 'some') return here === 'all';
  return keysNamed(globs).some((key) => showsAny(below(globs, key)));
}

function keysNamed(...lists: Globs[]): string[] {
  const keys = new Set<string>([OTHER_KEY]);
  for (const { granted, denied } of lists) for (const path of [...granted, ...denied]) if (path.length > 0 && path[0] !== '*') keys.add(path[0]!);
  return [...keys];
}

/** The globs as seen from inside `key`: those that reach it, one segment shorter (an empty path covers everything). */
function below({ granted, denied }: Globs, key: string): Globs {
  const inside = (paths: GlobPath[]) => paths.flatMap((path) => (path.length === 0 ? [path] : path[0] === '*' || path[0] === key ? [path.slice(1)] : []));
  return { granted: inside(granted), denied: inside(denied) };
}
