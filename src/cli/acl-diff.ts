import type { DataDocument } from '../policy/compile/data-document';
import { cellGrants } from '../policy/compile/grant-table';
import { auditMatrix, type Access } from './audit-matrix';
import { grantCause, type AclVersion } from './grant-cause';

/** What one role may do on one operation: the access, and the attributes it sees when allowed. */
export interface Cell {
  access: Access;
  attributes: string[];
}

export interface CellChange {
  operation: string;
  role: string;
  before: Cell;
  after: Cell;
  /** widened: more access, or attributes added or unmasked; narrowed: the reverse; changed: some of both. */
  change: 'widened' | 'narrowed' | 'changed';
  /** The declared grant behind the change: the new one for a widening, the old one for a narrowing. */
  cause: string;
}

const RANK: Record<Access, number> = { '-': 0, own: 1, any: 2, public: 3 };

/**
 * Every role x operation cell whose decision differs between two ACLs of one API, asked of the
 * policy as `svcgate audit` asks it, with the grant that caused each change.
 */
export async function aclDiff(before: AclVersion, after: AclVersion): Promise<CellChange[]> {
  const [old, next] = await Promise.all([auditMatrix(before.data), auditMatrix(after.data)]);
  const roles = [...new Set([...old.roles, ...next.roles])].sort();
  const changes: CellChange[] = [];
  for (const operation of Object.keys(next.operations)) {
    for (const role of roles) {
      const was = cell(before.data, operation, role, old.operations[operation]?.[role] ?? '-');
      const is = cell(after.data, operation, role, next.operations[operation]?.[role] ?? '-');
      const change = compare(was, is);
      if (change === undefined) continue;
      const [side, access] = change === 'narrowed' ? [before, was.access] : [after, is.access];
      changes.push({ operation, role, before: was, after: is, change, cause: `${side.name}: ${grantCause(side, operation, role, access)}` });
    }
  }
  return changes;
}

function cell(data: DataDocument, operation: string, role: string, access: Access): Cell {
  if (access === 'public') return { access, attributes: ['*'] };
  if (access === '-') return { access, attributes: [] };
  const row = data.operations[operation]?.grants;
  return { access, attributes: [...((row === undefined ? undefined : cellGrants(data, row, role))?.[access] ?? [])].sort() };
}

function compare(was: Cell, is: Cell): CellChange['change'] | undefined {
  if (RANK[is.access] !== RANK[was.access]) return RANK[is.access] > RANK[was.access] ? 'widened' : 'narrowed';
  const added = is.attributes.filter((glob) => !was.attributes.includes(glob));
  const removed = was.attributes.filter((glob) => !is.attributes.includes(glob));
  if (added.length === 0 && removed.length === 0) return undefined;
  // A grant glob added or a `!` glob removed shows more; the reverse shows less.
  const wider = [...added.filter((glob) => !glob.startsWith('!')), ...removed.filter((glob) => glob.startsWith('!'))].length > 0;
  const narrower = [...removed.filter((glob) => !glob.startsWith('!')), ...added.filter((glob) => glob.startsWith('!'))].length > 0;
  return wider && narrower ? 'changed' : wider ? 'widened' : 'narrowed';
}

/** One line per change: `widened  user on GET /users/{userId}: own ["*"] -> any ["*"]; new ACL: user ...`. */
export function formatDiff(changes: readonly CellChange[]): string {
  if (changes.length === 0) return 'no decision changes\n';
  const shown = ({ access, attributes }: Cell) => (access === '-' || access === 'public' ? access : `${access} ${JSON.stringify(attributes)}`);
  return `${changes.map((change) => `${change.change.padEnd(8)} ${change.role} on ${change.operation}: ${shown(change.before)} -> ${shown(change.after)}; ${change.cause}`).join('\n')}\n`;
}
