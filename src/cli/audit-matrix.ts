import type { DataDocument } from '../policy/compile/data-document';
import { Evaluator, type PolicyInput } from '../policy/evaluate/evaluator';

/** `public`: the operation needs no token (no security requirement with the scheme), so every caller may. */
export type Access = 'any' | 'own' | '-' | 'public';

export interface AuditMatrix {
  revision: string;
  roles: string[];
  /** Operation key -> role -> what the role may do there, with a token that has the scopes below; unguarded operations too. */
  operations: Record<string, Record<string, Access>>;
  /** Operation key -> the scopes a token needs there, as alternatives (any one is enough); [] when none. */
  scopes: Record<string, string[][]>;
  /**
   * List operation key (x-acl-list) -> the item operation it lists, e.g. `GET /orders` ->
   * `GET /orders/{orderId}`. Its cells are decided by the item's read grants: any lists every
   * item, own the items the caller owns.
   */
  lists: Record<string, string>;
}

/**
 * Who may do what, asked of the policy itself rather than recomputed: for each role and guarded
 * operation, a decision without ownership facts tells whether `any` allows it, or `own` would.
 * Roles and scopes are separate questions, so the roles are asked about with a token that holds
 * every scope the operation names, and the scopes are listed beside them.
 */
export async function auditMatrix(data: DataDocument): Promise<AuditMatrix> {
  const evaluator = await Evaluator.create(data);
  const roles = [...new Set([...Object.keys(data.roles), 'anonymous'])].sort();
  const operations: AuditMatrix['operations'] = {};
  const scopes: AuditMatrix['scopes'] = {};
  const lists: AuditMatrix['lists'] = {};
  for (const [key, operation] of Object.entries(data.operations)) {
    operations[key] = {};
    scopes[key] = operation.scopes;
    if (operation.list !== undefined) lists[key] = operation.list.item;
    if (!operation.secured) {
      for (const role of roles) operations[key][role] = 'public';
      continue;
    }
    const held = operation.scopes.length > 0 ? { scopes: [...new Set(operation.scopes.flat())] } : {};
    for (const role of roles) {
      const input: PolicyInput = role === 'anonymous' ? { operation: key, ...held } : { operation: key, role, ...held };
      const decision = evaluator.evaluate(input);
      operations[key][role] = decision.allow ? 'any' : decision.possession === 'own' && ownable(data, key) ? 'own' : '-';
    }
  }
  return { revision: data.revision, roles, operations, scopes, lists };
}

/** A list operation owns nothing itself: its rows are owned through the item's owned parameters. */
function ownable(data: DataDocument, key: string): boolean {
  const operation = data.operations[key]!;
  if (operation.list !== undefined) return Object.keys(operation.list.params).length > 0;
  return Object.values(operation.params).some((param) => param.owned);
}

/** Scope alternatives as one cell: `a b | c` is "a and b, or c". */
export function formatScopes(alternatives: readonly (readonly string[])[]): string {
  return alternatives.length === 0 ? '-' : alternatives.map((scopes) => scopes.join(' ')).join(' | ');
}

/** The item operation `key` lists, if it is a list operation (x-acl-list). */
export function listedItem(matrix: AuditMatrix, key: string): string | undefined {
  return Object.hasOwn(matrix.lists, key) ? matrix.lists[key] : undefined;
}

/** An operation as the matrix names it: a list operation with the item it lists. */
export function operationLabel(matrix: AuditMatrix, key: string): string {
  const item = listedItem(matrix, key);
  return item === undefined ? key : `${key} (lists ${item})`;
}

/** The matrix as a table; a last `scopes` column when some operation needs scopes. */
export function formatMatrix(matrix: AuditMatrix): string {
  const withScopes = Object.values(matrix.scopes).some((alternatives) => alternatives.length > 0);
  const header = ['operation', ...matrix.roles, ...(withScopes ? ['scopes'] : [])];
  const rows = Object.entries(matrix.operations).map(([key, access]) => [operationLabel(matrix, key), ...matrix.roles.map((role) => access[role]!), ...(withScopes ? [formatScopes(matrix.scopes[key]!)] : [])]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  const table = [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
  // Said once under the table: a list operation's cells are its item's, which the reader might not expect.
  if (Object.keys(matrix.lists).length > 0) table.push('', "a list operation (x-acl-list) is decided by its item's read grants: any lists every item, own the items the caller owns");
  return `${table.join('\n')}\n`;
}
