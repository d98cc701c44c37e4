import type { DataDocument } from '../policy/compile/data-document';
import { cellGrants } from '../policy/compile/grant-table';
import { auditMatrix, listedItem, type Access } from './audit-matrix';
import { includesAttributes } from '../policy/attributes/attribute-coverage';
import { canonicalAttributes } from '../policy/attributes/canonical-attributes';
import { changeCause } from './change-cause';
import type { AclVersion } from './grant-cause';

/** What one role may do on one operation: the access, and the attributes it sees when allowed (in canonical form). */
export interface Cell {
  access: Access;
  attributes: string[];
}

export interface CellChange {
  operation: string;
  role: string;
  before: Cell;
  after: Cell;
  /** widened: more access, or more fields shown; narrowed: the reverse; changed: some of both. */
  change: 'widened' | 'narrowed' | 'changed';
  /** The declared grants that differ behind the change (see changeCause), on the role or through its `$extend`. */
  cause: string;
  /** Set on a list operation (x-acl-list): the item operation whose read grants decide it. */
  lists?: string;
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
      const lists = listedItem(next, operation) ?? listedItem(old, operation);
      changes.push({ operation, role, before: was, after: is, change, cause: changeCause(before, after, operation, role, change, { before: was.access, after: is.access }), ...(lists === undefined ? {} : { lists }) });
    }
  }
  return changes;
}

/** The cell as the policy decides it, its attributes the compiler's (united along `$extend`) in canonical form; also the audit page's. */
export function cell(data: DataDocument, operation: string, role: string, access: Access): Cell {
  if (access === 'public') return { access, attributes: ['*'] };
  if (access === '-') return { access, attributes: [] };
  const row = data.operations[operation]?.grants;
  return { access, attributes: canonical((row === undefined ? undefined : cellGrants(data, row, role))?.[access] ?? []) };
}

// Cells share their grant set's lists (grant-table.ts), so each list is put in canonical form once.
const canonicalForms = new WeakMap<readonly string[], string[]>();

function canonical(list: readonly string[]): string[] {
  let form = canonicalForms.get(list);
  if (form === undefined) canonicalForms.set(list, (form = canonicalAttributes(list)));
  return form;
}

/**
 * By meaning, not by spelling: `["*"]` and `["*","id"]` are the same set. More access and no
 * fewer fields widens; a field shown by one side only, each way, or more access with fewer
 * fields, is a change of both kinds.
 */
function compare(was: Cell, is: Cell): CellChange['change'] | undefined {
  const access = Math.sign(RANK[is.access] - RANK[was.access]);
  const sameFields = JSON.stringify(was.attributes) === JSON.stringify(is.attributes);
  const wider = access > 0 || (!sameFields && !includesAttributes(was.attributes, is.attributes));
  const narrower = access < 0 || (!sameFields && !includesAttributes(is.attributes, was.attributes));
  if (wider && narrower) return 'changed';
  return wider ? 'widened' : narrower ? 'narrowed' : undefined;
}

/** One line per change: `widened  user on GET /users/{userId}: own ["*"] -> any ["*"]; new ACL: user ...`. */
export function formatDiff(changes: readonly CellChange[]): string {
  if (changes.length === 0) return 'no decision changes\n';
  const shown = ({ access, attributes }: Cell) => (access === '-' || access === 'public' ? access : `${access} ${JSON.stringify(attributes)}`);
  return `${changes.map((change) => `${change.change.padEnd(8)} ${change.role} on ${change.operation}${change.lists === undefined ? '' : ` (lists ${change.lists})`}: ${shown(change.before)} -> ${shown(change.after)}; ${change.cause}`).join('\n')}\n`;
}
