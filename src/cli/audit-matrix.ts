import type { DataDocument } from '../policy/data-document';
import { Evaluator, type PolicyInput } from '../policy/evaluator';

export type Access = 'any' | 'own' | '-';

export interface AuditMatrix {
  revision: string;
  roles: string[];
  /** Operation key -> role -> what the role may do there. */
  operations: Record<string, Record<string, Access>>;
}

/**
 * Who may do what, asked of the policy itself rather than recomputed: for each role and guarded
 * operation, a decision without ownership facts tells whether `any` allows it, or `own` would.
 */
export async function auditMatrix(data: DataDocument): Promise<AuditMatrix> {
  const evaluator = await Evaluator.create(data);
  const roles = [...new Set([...Object.keys(data.roles), 'anonymous'])].sort();
  const operations: AuditMatrix['operations'] = {};
  for (const [key, operation] of Object.entries(data.operations)) {
    if (!operation.secured) continue;
    operations[key] = {};
    for (const role of roles) {
      const input: PolicyInput = role === 'anonymous' ? { operation: key } : { operation: key, role };
      const decision = evaluator.evaluate(input);
      operations[key][role] = decision.allow ? 'any' : decision.possession === 'own' && ownable(data, key) ? 'own' : '-';
    }
  }
  return { revision: data.revision, roles, operations };
}

function ownable(data: DataDocument, key: string): boolean {
  return Object.values(data.operations[key]!.params).some((param) => param.owned);
}

export function formatMatrix(matrix: AuditMatrix): string {
  const header = ['operation', ...matrix.roles];
  const rows = Object.entries(matrix.operations).map(([key, access]) => [key, ...matrix.roles.map((role) => access[role]!)]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return `${[line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n')}\n`;
}
