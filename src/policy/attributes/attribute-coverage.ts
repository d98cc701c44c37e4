import { parseGlob, showsPath, type AttributeGlob } from './attribute-glob';

/**
 * Compares attribute glob lists by the fields they show, under the one rule the filter and the
 * policy apply (showsPath, policy/attributes/attribute-glob.ts), not by their spelling: `["*"]`
 * shows what `["*","id"]` shows, `["*","!password"]` shows less than `["*"]`.
 *
 * A glob only tells apart the keys it names, so the paths worth asking about are few: at each
 * depth, the keys that the globs still reaching that deep name there, and one key none names
 * (standing for all the others); below the longest glob nothing changes. Both lists are asked
 * about each such path.
 */

/** Stands for every key that no glob names at that depth. */
const OTHER_KEY = '\u0000other';
/**
 * Paths asked about at most. Wildcards in the middle of many long globs multiply them; an ACL
 * from a pull request must not make the diff run for ever, so past this the lists are compared
 * by spelling (equal when they hold the same globs).
 */
const MAX_PATHS = 100_000;

/** True when every field `inner` shows, `outer` shows too. */
export function includesAttributes(outer: readonly string[], inner: readonly string[]): boolean {
  return compare(outer, inner, (shownByOuter, shownByInner) => shownByOuter || !shownByInner);
}

/** True when the two lists show the same fields. */
export function sameAttributes(a: readonly string[], b: readonly string[]): boolean {
  return compare(a, b, (shownByA, shownByB) => shownByA === shownByB);
}

function compare(a: readonly string[], b: readonly string[], holds: (shownByA: boolean, shownByB: boolean) => boolean): boolean {
  const [globsA, globsB] = [a.map(parseGlob), b.map(parseGlob)];
  const paths = pathsToAsk([...globsA, ...globsB]);
  if (paths === undefined) return holds(true, true) && spelling(a) === spelling(b);
  return paths.every((path) => holds(showsPath(globsA, path), showsPath(globsB, path)));
}

/** False when the lists are too intricate to walk (see MAX_PATHS): then they are compared by spelling. */
export function walkable(globs: readonly string[]): boolean {
  return pathsToAsk(globs.map(parseGlob)) !== undefined;
}

function spelling(globs: readonly string[]): string {
  return JSON.stringify([...new Set(globs)].sort());
}

/** Every path that can tell the globs' answers apart, or undefined past MAX_PATHS. */
function pathsToAsk(globs: readonly AttributeGlob[]): string[][] | undefined {
  const paths: string[][] = [];
  const walk = (prefix: string[], reaching: readonly AttributeGlob[]): boolean => {
    const depth = prefix.length;
    const keys = new Set([OTHER_KEY]);
    for (const glob of reaching) if (glob.segments[depth] !== '*') keys.add(glob.segments[depth]!);
    for (const key of keys) {
      const path = [...prefix, key];
      paths.push(path);
      if (paths.length > MAX_PATHS) return false;
      const deeper = reaching.filter((glob) => glob.segments.length > depth + 1 && (glob.segments[depth] === '*' || glob.segments[depth] === key));
      if (deeper.length > 0 && !walk(path, deeper)) return false;
    }
    return true;
  };
  return walk([], globs.filter((glob) => glob.segments.length > 0)) ? paths : undefined;
}
