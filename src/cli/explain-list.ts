import type { DataDocument, OperationFacts } from '../policy/compile/data-document';
import type { ListPlan, ListValue } from '../policy/evaluate/list-plan';
import { ListPlanError } from '../list/list-plan-error';
import type { SqlBoundValue, SqlDialect } from '../list/sql-value';
import { toSql } from '../list/to-sql';
import type { ListSqlRequest } from './list-sql-options';
import { UsageError } from './usage-error';

/** What explain shows of a list operation (x-acl-list) beside its decision, whose `list` is the plan. */
export interface ListExplanation {
  /** The item operation it lists, e.g. `GET /orders/{orderId}`. */
  item: string;
  /** With --sql: the plan as toSql writes it, and the columns it was given. */
  sql?: ListSql;
}

export interface ListSql {
  dialect: SqlDialect;
  columns: Record<string, string>;
  text: string;
  values: SqlBoundValue[];
}

/**
 * The columns toSql is given for the operation's plan: each owned parameter of the item by its own
 * name unless --column names another. --sql on an operation that lists nothing, or a --column for a
 * parameter the item does not own, is a usage error.
 */
export function sqlColumns(data: DataDocument, key: string, operation: OperationFacts, request: ListSqlRequest): Record<string, string> {
  if (operation.list === undefined) {
    const lists = Object.keys(data.operations).filter((other) => data.operations[other]!.list !== undefined);
    const hint = lists.length === 0 ? 'the document declares no x-acl-list' : `the list operations are ${lists.join(', ')}`;
    throw new UsageError(`--sql writes the plan of a list operation (x-acl-list) as SQL, and ${key} is not one: ${hint}`);
  }
  const names = Object.values(operation.list.params).map((param) => param.name);
  const unknown = Object.keys(request.columns).find((param) => !names.includes(param));
  if (unknown !== undefined) {
    const owned = names.length === 0 ? 'it owns none' : `its owned parameters are ${names.join(', ')}`;
    throw new UsageError(`--column ${unknown}=${request.columns[unknown]}: the item ${operation.list.item} owns no parameter ${unknown}; ${owned}`);
  }
  return Object.fromEntries(names.map((name) => [name, Object.hasOwn(request.columns, name) ? request.columns[name]! : name]));
}

/** The plan as toSql writes it; a column toSql cannot quote is the --column given for it. */
export function planSql(plan: ListPlan, options: { dialect: SqlDialect; columns: Record<string, string> }): ListSql {
  try {
    return { ...options, ...toSql(plan, options) };
  } catch (error) {
    if (error instanceof ListPlanError && error.code === 'ERR_SVCGATE_LIST_COLUMN') throw new UsageError(`--column: ${error.problem}; ${error.fix}`);
    throw error;
  }
}

/** The lines explain prints for a list operation, after the decision's reasons. */
export function listLines(list: ListExplanation, plan: ListPlan | undefined): string[] {
  const lines = [`lists: ${list.item} (x-acl-list): the items the caller could read one by one`];
  // Absent only when the source answered no plan at all (unavailable); the decision says why.
  if (plan === undefined) return [...lines, 'plan: -'];
  lines.push(`plan: ${planText(plan)}`, `plan attributes: ${plan.attributes.length > 0 ? plan.attributes.join(' ') : '-'}`);
  if (list.sql !== undefined) lines.push(`sql (${list.sql.dialect}): ${list.sql.text}`, `sql values: ${JSON.stringify(list.sql.values)}`);
  return lines;
}

function planText(plan: ListPlan): string {
  if (plan.kind === 'all') return 'all, every item';
  if (plan.kind === 'none') return 'none, no item';
  const entries = plan.anyOf.map((entry) => Object.entries(entry).map(([param, values]) => `${param} IN (${values.map(shownValue).join(', ')})`));
  const several = entries.length > 1;
  return `some, the items where ${entries.map((params) => (several && params.length > 1 ? `(${params.join(' AND ')})` : params.join(' AND '))).join(' OR ')}`;
}

/** Numbers and booleans as they are, text quoted: an unsafe integer the plan keeps as text shows as text. */
function shownValue(value: ListValue): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
