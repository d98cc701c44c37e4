import { sameAttributes } from './attribute-coverage';
import { declaredGrant, grantCause, type AclVersion } from './grant-cause';
import type { Access } from './audit-matrix';

/** One grant that differs between the ACLs, on the role or on a role its `$extend` chain reaches. */
interface GrantChange {
  role: string;
  /** The roles from the changed cell's role to `role`, through `$extend`. */
  path: string[];
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
  for (const { role: reached, path } of chain(before, after, role)) {
    for (const possession of ['any', 'own']) {
      const grant = `${facts.action}:${possession}`;
      const was = declaredGrant(before.declaration, reached, facts.resource, grant);
      const is = declaredGrant(after.declaration, reached, facts.resource, grant);
      if (!sameGrant(was, is)) changes.push({ role: reached, path, grant, before: was, after: is });
    }
    const [wasExtending, isExtending] = [before, after].map((side) => side.data.roles[reached]?.extends ?? []);
    if (JSON.stringify(wasExtending) !== JSON.stringify(isExtending)) extendsChanges.push(`new ACL: ${reached} $extend ${JSON.stringify(isExtending)} (was ${JSON.stringify(wasExtending)})${via(path)}`);
  }
  // A widening comes from what the new ACL grants, a narrowing from what the old one granted and the new one no longer does (or grants less).
  const preferred = changes.filter((grantChange) => (change === 'widened' ? grantChange.after !== undefined : change === 'narrowed' ? grantChange.before !== undefined : true));
  const named = [...(preferred.length > 0 ? preferred : changes).map((grantChange) => describe(grantChange, facts.resource)), ...extendsChanges];
  if (role === 'anonymous' && before.data.anonymous_default !== after.data.anonymous_default) named.push(anonymousDefaultChange(after.data.anonymous_default));
  if (named.length > 0) return named.join('; ');
  // Nothing declared differs (the compiler changed, say): the grant in effect on the side that grants more.
  const [side, shown] = change === 'narrowed' ? [before, access.before] : [after, access.after];
  return `${side.name}: ${grantCause(side, operation, role, shown)}`;
}

function describe({ role, path, grant, before, after }: GrantChange, resource: string): string {
  const [side, attributes] = after === undefined ? ['old ACL', before] : ['new ACL', after];
  return `${side}: ${role} ${resource} ${grant} ${JSON.stringify(attributes)}${via(path)}`;
}

/** ` via $extend of user`, and the whole chain when it is longer than one step. */
function via(path: readonly string[]): string {
  if (path.length < 2) return '';
  return ` via $extend of ${path.at(-1)}${path.length > 2 ? ` (${path.join(' > ')})` : ''}`;
}

function anonymousDefaultChange(nowOn: boolean): string {
  return nowOn
    ? 'new ACL: the built-in anonymous default (read:any on operations without parameters), because the new ACL does not declare anonymous'
    : 'old ACL: the built-in anonymous default (read:any on operations without parameters), which the new ACL turns off by declaring anonymous';
}

/** Two declarations of one grant are the same when both are absent or they show the same fields. */
function sameGrant(was: unknown, is: unknown): boolean {
  if (was === undefined || is === undefined) return was === is;
  if (!isGlobList(was) || !isGlobList(is)) return JSON.stringify(was) === JSON.stringify(is);
  return sameAttributes(was, is);
}

function isGlobList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** The role, then every role its `$extend` reaches in either ACL, nearest first, each with the path to it. */
function chain(before: AclVersion, after: AclVersion, role: string): { role: string; path: string[] }[] {
  const reached: { role: string; path: string[] }[] = [];
  const seen = new Set<string>();
  const queue = [{ role, path: [role] }];
  while (queue.length > 0) {
    const next = queue.shift()!;
    if (seen.has(next.role)) continue;
    seen.add(next.role);
    reached.push(next);
    const parents = new Set([...(before.data.roles[next.role]?.extends ?? []), ...(after.data.roles[next.role]?.extends ?? [])]);
    for (const parent of parents) queue.push({ role: parent, path: [...next.path, parent] });
  }
  return reached;
}
