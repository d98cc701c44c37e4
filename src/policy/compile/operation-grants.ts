import { GRANT_KEYS, type DeclaredRoles, type ResourceGrants } from './acl-declaration';
import { openedByAnonymousDefault } from './anonymous-default';
import type { Action, GrantTable, OperationFacts, OperationSpec } from './data-document';
import { GrantTableBuilder } from './grant-table';
import { grantsSomething, uniteAttributeLists } from '../attributes/attribute-union';

/**
 * Adds to every secured operation what each role may do there: the role's own grants for the
 * operation's resource and action, and those of every role it extends, transitively. Working this
 * out once here keeps `$extend` and the resource lookup out of every evaluation. A role's lists and
 * those it inherits are united as accesscontrol unites them (attribute-union.ts: a parent's
 * negation does not hide what the role itself grants). Lists that grant nothing (empty, or only
 * negations) are left out. When the ACL does not declare `anonymous`, the built-in
 * grant (read:any on operations without parameters) is added too, in a column of its own, so the
 * policy has one kind of grant to look up.
 */
export function withGrants(operations: Record<string, OperationFacts>, declared: DeclaredRoles, seedGrantApplies: boolean): { table: GrantTable; operations: Record<string, Omit<OperationSpec, 'unowned_reasons'>> } {
  const builder = new GrantTableBuilder(seedGrantApplies ? [...Object.keys(declared.roles), 'anonymous'] : Object.keys(declared.roles));
  const securedByResource = new Map<string, { row: number; action: Action }[]>();
  for (const [key, operation] of Object.entries(operations)) {
    const row = builder.addRow(key);
    if (operation.secured) securedByResource.set(operation.resource, [...(securedByResource.get(operation.resource) ?? []), { row, action: operation.action }]);
    if (seedGrantApplies && openedByAnonymousDefault(operation, operations)) builder.set(row, builder.column('anonymous'), ['*'], undefined);
  }

  // Walked from the declarations, so that the work follows what is declared, not roles x operations.
  for (const [role, reached] of reachableRoles(declared.extends)) {
    const column = builder.column(role);
    // A role that extends none has only its own grants: no list per resource to build (a large ACL has a million).
    const byResource = reached.length === 1 ? (declared.roles[role]?.grants ?? new Map<string, ResourceGrants>()) : grantsByResource(reached, declared);
    for (const [resource, declaredHere] of byResource) {
      for (const { row, action } of securedByResource.get(resource) ?? []) {
        const any = attributesFor(declaredHere, GRANT_KEYS[action].any);
        const own = attributesFor(declaredHere, GRANT_KEYS[action].own);
        if (any !== undefined || own !== undefined) builder.set(row, column, any, own);
      }
    }
  }

  const { table, rows } = builder.build();
  // fromEntries defines each key, so that an operation named __proto__ stays a key.
  return { table, operations: Object.fromEntries(Object.entries(operations).map(([key, operation]) => [key, { ...operation, grants: rows.get(key)! }])) };
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

/** Resource -> the grants declared on it by any of these roles. */
function grantsByResource(roles: readonly string[], declared: DeclaredRoles): Map<string, ResourceGrants[]> {
  const byResource = new Map<string, ResourceGrants[]>();
  for (const role of roles) {
    for (const [resource, grants] of declared.roles[role]?.grants ?? []) {
      const list = byResource.get(resource);
      if (list === undefined) byResource.set(resource, [grants]);
      else list.push(grants);
    }
  }
  return byResource;
}

/** The attributes that one role's grants on a resource, or several roles' united, list under `key`; undefined for none. */
function attributesFor(declaredHere: ResourceGrants | ResourceGrants[], key: keyof ResourceGrants): string[] | undefined {
  if (!Array.isArray(declaredHere)) return granting(declaredHere[key]);
  const lists: string[][] = [];
  for (const grants of declaredHere) {
    const list = grants[key];
    if (list !== undefined) lists.push(list);
  }
  return granting(uniteAttributeLists(lists));
}

function granting(list: string[] | undefined): string[] | undefined {
  return list === undefined || !grantsSomething(list) ? undefined : list;
}
