import { sameAttributes } from '../policy/attributes/attribute-coverage';
import { declaredGrant, grantCause, type AclVersion } from './grant-cause';
import type { Access } from './audit-matrix';

/** One grant that differs between the ACLs, on the role or on a role its `$extend` chain reaches. */
interface GrantChange {
  role: string;
  /** How the changed cell's role reaches `role` through `$extend`. */
  reached: Reached;
  grant: string;
  before: unknown;
  after: unknown;
}

/**
 * The declared grants behind a changed cell: those of the role and of every role its `$extend`
 * chain reaches (in either ACL) whose attributes or presence differ between the two ACLs, for the
 * operation's resource and action, or an `$extend` list that changed. A grant that is the same in
 * both is never named, however much it contributes: when `user` adds `"!password"`, the narrowing
 * of an `admin` that extends user is `user`'s grant, not admin's own unchanged one. The effective
 * attributes come from the compiled data (whatever the compiler makes of `$extend`); only the
 * blame is read from the declarations.
 */
export function changeCause(before: AclVersion, after: AclVersion, operation: string, role: string, change: 'widened' | 'narrowed' | 'changed', access: { before: Access; after: Access }): string {
  const facts = after.data.operations[operation] ?? before.data.operations[operation];
  if (facts === undefined) return 'no grant';
  if (access.before === 'public' || access.after === 'public') return 'the operation needs no token';
  const changes: GrantChange[] = [];
  const extendsChanges: string[] = [];
  for (const reached of chain(before, after, role)) {
    for (const possession of ['any', 'own']) {
      const grant = `${facts.action}:${possession}`;
      const was = declaredGrant(before.declaration, reached.role, facts.resource, grant);
      const is = declaredGrant(after.declaration, reached.role, facts.resource, grant);
      if (!sameGrant(was, is)) changes.push({ role: reached.role, reached, grant, before: was, after: is });
    }
    const [wasExtending, isExtending] = [before, after].map((side) => side.data.roles[reached.role]?.extends ?? []);
    if (JSON.stringify(wasExtending) !== JSON.stringify(isExtending)) extendsChanges.push(`new ACL: ${reached.role} $extend ${JSON.stringify(isExtending)} (was ${JSON.stringify(wasExtending)})${via(reached)}`);
  }
  // A widening comes from what the new ACL grants, a narrowing from what the old one granted and the new one no longer does (or grants less).
  const preferred = changes.filter((grantChange) => (change === 'widened' ? grantChange.after !== undefined : change === 'narrowed' ? grantChange.before !== undefined : true));
  const causes = [...(preferred.length > 0 ? preferred : changes), ...extendsChanges];
  // Nearest first; a long chain that changed everywhere is summed up rather than printed whole.
  const named = causes.slice(0, MAX_NAMED).map((cause) => (typeof cause === 'string' ? cause : describe(cause, facts.resource)));
  if (causes.length > MAX_NAMED) named.push(`and ${causes.length - MAX_NAMED} more changes along the $extend chain`);
  if (role === 'anonymous' && before.data.anonymous_default !== after.data.anonymous_default) named.push(anonymousDefaultChange(after.data.anonymous_default));
  if (named.length > 0) return named.join('; ');
  // Nothing declared differs (the compiler changed, say): the grant in effect on the side that grants more.
  const [side, shown] = change === 'narrowed' ? [before, access.before] : [after, access.after];
  return `${side.name}: ${grantCause(side, operation, role, shown)}`;
}

/** Causes named on one line at most; the rest are counted. */
const MAX_NAMED = 3;
/** Roles of a chain written out at most; a longer one is shortened in the middle. */
const MAX_SHOWN_CHAIN = 5;

function describe({ role, reached, grant, before, after }: GrantChange, resource: string): string {
  const [side, attributes] = after === undefined ? ['old ACL', before] : ['new ACL', after];
  return `${side}: ${role} ${resource} ${grant} ${JSON.stringify(attributes)}${via(reached)}`;
}

/** ` via $extend of user`, and the chain when it is longer than one step: `(admin > manager > user)`. */
function via(reached: Reached): string {
  const path = pathTo(reached);
  if (path.length < 2) return '';
  const shown = path.length > MAX_SHOWN_CHAIN ? [...path.slice(0, 2), `... ${path.length - 3} more`, path.at(-1)!] : path;
  return ` via $extend of ${path.at(-1)}${path.length > 2 ? ` (${shown.join(' > ')})` : ''}`;
}

function anonymousDefaultChange(nowOn: boolean): string {
  return nowOn
    ? 'new ACL: the built-in anonymous default (read:any on operations without parameters), because the new ACL does not declare anonymous'
    : 'old ACL: the built-in anonymous default (read:any on operations without parameters), which the new ACL turns off by declaring anonymous';
}

/** Two declarations of one grant are the same when both are absent or they show the same fields. */
function sameGrant(was: unknown, is: unknown): boolean {
  if (was === undefined || is === undefined) return was === is;
  // Most roles of a chain are untouched by a change: their lists are spelled the same.
  if (JSON.stringify(was) === JSON.stringify(is)) return true;
  if (!isGlobList(was) || !isGlobList(is)) return JSON.stringify(was) === JSON.stringify(is);
  return sameAttributes(was, is);
}

function isGlobList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** A role a changed cell's role reaches through `$extend`, with the role it was reached from. */
interface Reached {
  role: string;
  from: Reached | undefined;
}

function pathTo(reached: Reached): string[] {
  const path: string[] = [];
  for (let step: Reached | undefined = reached; step !== undefined; step = step.from) path.unshift(step.role);
  return path;
}

/** The role, then every role its `$extend` reaches in either ACL, nearest first. */
function chain(before: AclVersion, after: AclVersion, role: string): Reached[] {
  const reached: Reached[] = [{ role, from: undefined }];
  const seen = new Set([role]);
  for (let index = 0; index < reached.length; index++) {
    const current = reached[index]!;
    for (const parent of [...(before.data.roles[current.role]?.extends ?? []), ...(after.data.roles[current.role]?.extends ?? [])]) {
      if (seen.has(parent)) continue;
      seen.add(parent);
      reached.push({ role: parent, from: current });
    }
  }
  return reached;
}
