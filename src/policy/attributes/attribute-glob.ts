/**
 * One attribute glob of accesscontrol's notation, read once: `name`, `address.city`, `*` (any key at
 * that level), each optionally negated with a leading `!`. The meaning of a list of them is one rule
 * (docs/policy.md, "Attributes"), which the filter, the union of lists and the policy all apply:
 * for a path into the data, the globs that cover it are those whose segments match its first
 * segments (`*` matching any one); the most specific of them decides: the longest, then one that
 * ends in a name over one that ends in `*`; among equally specific ones a negation wins; a path no
 * glob covers is hidden. This is the rule accesscontrol documents ("a glob is covered by another",
 * "negated wins"), applied to the list as written.
 */
export interface AttributeGlob {
  negated: boolean;
  /** The dot-separated segments after the `!`; empty segments dropped. A glob without any covers nothing. */
  segments: readonly string[];
}

export function parseGlob(glob: string): AttributeGlob {
  const negated = glob.startsWith('!');
  return { negated, segments: (negated ? glob.slice(1) : glob).split('.').filter((segment) => segment !== '') };
}

/** True for `*`, which matches any one key. */
export function isWildcard(segment: string): boolean {
  return segment === '*';
}

/**
 * How specific a glob is when it covers a path: twice its length, plus one when it ends in a name,
 * so `a.b` > `a.*` > `a` > `*`. -1 when it does not cover the path (a path segment `*` is matched
 * only by a glob's `*`, as accesscontrol compares globs with globs).
 */
export function coverRank(glob: AttributeGlob, path: readonly string[]): number {
  const { segments } = glob;
  if (segments.length === 0 || segments.length > path.length) return -1;
  for (let i = 0; i < segments.length; i++) if (!isWildcard(segments[i]!) && segments[i] !== path[i]) return -1;
  return 2 * segments.length + (isWildcard(segments[segments.length - 1]!) ? 0 : 1);
}

/** Whether `globs` show the value at `path` under the rule above. */
export function showsPath(globs: readonly AttributeGlob[], path: readonly string[]): boolean {
  let best = -1;
  let hidden = true;
  for (const glob of globs) {
    const rank = coverRank(glob, path);
    if (rank < 0 || rank < best) continue;
    // A more specific glob decides afresh; an equally specific negation wins over a grant.
    hidden = rank > best ? glob.negated : hidden || glob.negated;
    best = rank;
  }
  return best >= 0 && !hidden;
}
