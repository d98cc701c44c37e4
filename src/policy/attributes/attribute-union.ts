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
  const parsed = granting.map((list) => list.map(parseGlob));
  const united = new Set<string>();
  granting.forEach((list, index) => {
    list.forEach((glob, position) => {
      const read = parsed[index]![position]!;
      if (!read.negated || !shownByAnother(parsed, index, read)) united.add(glob);
    });
  });
  return [...united];
}

function shownByAnother(lists: readonly (readonly AttributeGlob[])[], self: number, negation: AttributeGlob): boolean {
  return lists.some((list, index) => index !== self && showsPath(list, negation.segments));
}

/**
 * Whether a list grants anything: it holds a glob that is not a negation. accesscontrol's
 * `Permission.granted` says the same ("just one non-negated attribute is enough"), so `[]` and
 * `["!password"]` grant nothing, and an action granted only so is not granted.
 */
export function grantsSomething(list: readonly string[]): boolean {
  return list.some((glob) => !glob.startsWith('!'));
}
