import { parseGlob, showsPath, type AttributeGlob } from './attribute-glob';

/**
 * The union of attribute lists, where lists meet: a role and the roles it extends (`$extend`), and
 * a caller with several roles. What the union shows is what at least one list shows, under the one
 * rule of attribute-glob.ts. accesscontrol 2.2.1 (what @oas-tools/auth decides with) unites lists
 * with notation's Glob.union, with the same aim: "non-negated wins" across lists, so that
 * `["*", "!password"]` united with `["*"]` shows `password`. Concatenating the lists instead, as
 * svcgate once did, let a negation of one role hide what another role grants.
 *
 * Built from the lists as written, with nothing new in it:
 * - every granting glob of every list (a list never shows less for the others' grants);
 * - a negation of one list only where no other list shows that path: a negation another list
 *   does not share would hide what that list shows. Kept where all agree, it still hides what the
 *   more general grants of any list would show there.
 * Lists that grant nothing (empty, or negations only) add nothing: they show nothing, and their
 * negations would only hide what no other list shows. The result does not depend on the order of
 * the lists or on how they are grouped, so a chain of `$extend` and a list of roles give the same
 * answer however they are walked. notation's union depends on both in corner cases, and in some
 * shows what no list shows or hides what one shows; docs/policy.md lists those cases.
 */
export function uniteAttributeLists(lists: readonly (readonly string[])[]): string[] {
  const granting = lists.filter(grantsSomething);
  if (granting.length === 1) return [...granting[0]!];
  // A list met twice adds nothing: its negations are hidden by itself either way (see below).
  const distinct = [...new Map(granting.map((list) => [JSON.stringify(list), list])).values()];
  const byFirst = firstSegmentIndex(distinct);
  const united = new Set<string>();
  const dropped = new Set<string>();
  for (const list of distinct) {
    for (const glob of list) {
      if (united.has(glob) || dropped.has(glob)) continue;
      const read = parseGlob(glob);
      // A list never shows the path its own negation names (nothing there is more specific, and a
      // negation wins a tie), so "shown by another list" is "shown by any": asked once per spelling.
      if (!read.negated || !shownByAny(byFirst, read.segments)) united.add(glob);
      else dropped.add(glob);
    }
  }
  return [...united];
}

/** For each first segment (`*` included), the lists that hold globs starting with it, with those globs. */
type FirstSegmentIndex = Map<string, Map<number, AttributeGlob[]>>;

/**
 * Built once per union, so that a negation is compared only with the globs that can cover its
 * path: those starting with its first segment or with `*`. Comparing it with every glob of every
 * other list made a chain of $extend cubic in its length (a role unites the lists of all it
 * extends, and each negation met every glob of them): 100 roles of 21 globs took 2.6 s.
 */
function firstSegmentIndex(lists: readonly (readonly string[])[]): FirstSegmentIndex {
  const index: FirstSegmentIndex = new Map();
  lists.forEach((list, position) => {
    for (const glob of list.map(parseGlob)) {
      const first = glob.segments[0];
      if (first === undefined) continue;
      let holders = index.get(first);
      if (holders === undefined) index.set(first, (holders = new Map()));
      let globs = holders.get(position);
      if (globs === undefined) holders.set(position, (globs = []));
      globs.push(glob);
    }
  });
  return index;
}

function shownByAny(index: FirstSegmentIndex, path: readonly string[]): boolean {
  const first = path[0];
  if (first === undefined) return false;
  const named = index.get(first);
  const wild = first === '*' ? undefined : index.get('*');
  // Lazily, list by list: the first list that shows the path settles it.
  for (const [position, globs] of named ?? []) {
    if (showsPath([...globs, ...(wild?.get(position) ?? [])], path)) return true;
  }
  for (const [position, globs] of wild ?? []) {
    if (!named?.has(position) && showsPath(globs, path)) return true;
  }
  return false;
}

/**
 * Whether a list grants anything: it holds a glob that is not a negation. accesscontrol's
 * `Permission.granted` says the same ("just one non-negated attribute is enough"), so `[]` and
 * `["!password"]` grant nothing, and an action granted only so is not granted.
 */
export function grantsSomething(list: readonly string[]): boolean {
  return list.some((glob) => !glob.startsWith('!'));
}
