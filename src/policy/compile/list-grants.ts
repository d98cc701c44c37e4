import { GRANT_KEYS, type DeclaredRoles } from './acl-declaration';
import { ConfigError, jsonPath } from './config-error';
import type { OperationFacts } from './data-document';

/**
 * The paths of list operations (`x-acl-list`), which the ACL may still name for their other
 * operations (POST /orders), so the compiler accepts them as resources.
 */
export function listPaths(operations: Record<string, OperationFacts>): string[] {
  return Object.values(operations)
    .filter((operation) => operation.list !== undefined)
    .map((operation) => operation.path);
}

/**
 * A read grant on a list operation's own path decides nothing once the path is listed by its item
 * (the item's read grants decide it), unless another read operation stays on the path. Such a
 * grant is what an ACL written before `x-acl-list` holds, so it is an error that says where the
 * grant now belongs rather than a grant that silently stops granting.
 */
export function refuseListPathReads(operations: Record<string, OperationFacts>, declared: DeclaredRoles, aclFile: string): void {
  const readPaths = new Set(Object.values(operations).filter((operation) => operation.action === 'read').map((operation) => operation.resource));
  const listed = new Map(Object.values(operations).flatMap((operation) => (operation.list === undefined || readPaths.has(operation.path) ? [] : [[operation.path, operation] as const])));
  if (listed.size === 0) return;
  for (const [role, spec] of Object.entries(declared.roles)) {
    for (const [resource, grants] of spec.grants) {
      const list = listed.get(resource);
      if (list === undefined) continue;
      for (const grant of [GRANT_KEYS.read.any, GRANT_KEYS.read.own]) {
        if (!Object.hasOwn(grants, grant)) continue;
        throw new ConfigError(
          aclFile,
          jsonPath([role, resource, grant]),
          `${grant} of ${role} on ${resource} decides nothing: ${list.method} ${list.path} lists ${list.resource} (x-acl-list), so the read grants of ${list.resource} decide which items it returns`,
          `move the grant to ${list.resource}`,
        );
      }
    }
  }
}
