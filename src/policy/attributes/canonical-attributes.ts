import { sameAttributes, walkable } from './attribute-coverage';

/**
 * The canonical form of an attribute glob list: the same fields shown (sameAttributes, under the
 * rule of policy/attributes/attribute-glob.ts) with no glob that changes nothing, sorted. So
 * `["*","id"]` is `["*"]` (`id` lies under `*`), `["a","a.b"]` is `["a"]`, `["id","name","id"]`
 * and `["name","id"]` are `["id","name"]`, while `["*","!password"]` keeps its negation; a list
 * that shows nothing (`[]`, `["!password"]`) is `[]`. Sorted as strings, so negations come
 * first (`!` sorts before `*` and letters): `["!password","*"]`.
 * Globs are dropped one at a time, in sorted order, each only when the list without it still
 * shows the same fields as the list given.
 */
export function canonicalAttributes(globs: readonly string[]): string[] {
  let kept = [...new Set(globs)].sort();
  // A list too intricate to compare by meaning is kept as written, deduplicated and sorted.
  if (!walkable(globs)) return kept;
  for (const glob of [...kept]) {
    const without = kept.filter((other) => other !== glob);
    if (sameAttributes(without, globs)) kept = without;
  }
  return kept;
}
