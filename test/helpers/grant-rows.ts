import { cellGrants } from '../../src/policy/compile/grant-table';
import type { DataDocument, OperationGrants } from '../../src/policy';

/** Role -> what it may do on one operation, read out of the data document's grant table; roles with an empty cell left out. */
export function grantsOf(data: DataDocument, operation: string): Record<string, OperationGrants> {
  const row = data.operations[operation]!.grants;
  return Object.fromEntries(
    Object.keys(data.grant_offsets).flatMap((role) => {
      const granted = cellGrants(data, row, role);
      return granted === undefined ? [] : [[role, granted] as const];
    }),
  );
}
