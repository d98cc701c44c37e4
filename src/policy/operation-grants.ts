import type { DeclaredRoles } from './acl-declaration';
import type { OperationGrants, OperationSpec, Possession } from './data-document';
import type { OperationFacts } from './openapi-operations';

const POSSESSIONS: readonly Possession[] = ['any', 'own'];

/**
 * Adds to every secured operation what each role may do there: the role's own grants for the
 * operation's resource and action, and those of every role it extends, transitively. Working this
 * out once here keeps `$extend` and the resource lookup out of every evaluation. Empty attribute
 * lists grant nothing and are left out. When the ACL does not declare `anonymous`, the built-in
 * grant (read:any on operations without parameters) is added too, so the policy has one kind of
 * grant to look up.
 */
export function withGrants(operations: Record<string, OperationFacts>, declared: DeclaredRoles, anonymousDefault: boolean): Record<string, OperationSpec> {
  const reach = reachableRoles(declared.extends);
  const result: Record<string, OperationSpec> = {};
  for (const [key, operation] of Object.entries(operations)) {
    const grants: Record<string, OperationGrants> = {};
    if (operation.secured) {
      for (const [role, reached] of reach) {
        const granted = grantsThrough(reached, declared, operation);
        if (granted !== undefined) grants[role] = granted;
      }
      if (anonymousDefault && operation.action === 'read' && Object.keys(operation.params).length === 0) grants.anonymous = { any: ['*'] };
    }
    result[key] = { ...operation, grants };
  }
  return result;
}

/** Role -> itself and every role it extends, transitively (the compiler has ruled out cycles). */
function reachableRoles(graph: Record<string, string[]>): Map<string, string[]> {
  const reach = new Map<string, string[]>();
  for (const role of Object.keys(graph)) {
    const seen = new Set([role]);
    for (const current of seen) for (const parent of graph[current] ?? []) seen.add(parent);
    reach.set(role, [...seen]);
  }
  return reach;
}

function grantsThrough(roles: string[], declared: DeclaredRoles, operation: OperationFacts): OperationGrants | undefined {
  let granted: OperationGrants | undefined;
  for (const possession of POSSESSIONS) {
    const key = `${operation.action}:${possession}` as const;
    let attributes: string[] | undefined;
    for (const role of roles) {
      const list = declared.roles[role]?.grants[operation.resource]?.[key];
      if (list === undefined || list.length === 0) continue;
      attributes = attributes === undefined ? list : [...new Set([...attributes, ...list])];
    }
    if (attributes !== undefined) (granted ??= {})[possession] = attributes;
  }
  return granted;
}
