import type { ListCondition, ListPlan } from '../policy/evaluate/list-plan';
import { boundedJoin } from './bounded-join';
import { ListPlanError } from './list-plan-error';
import { mappedName } from './mapped-name';
import { readListPlan } from './read-list-plan';
import { quoteColumn } from './sql-identifier';
import { MAX_SQL_PARAMETERS, readSqlOptions, type SqlOptions, type ToSqlOptions } from './sql-options';
import { boundValue, sqlComparison, type SqlBoundValue } from './sql-value';

/** A boolean SQL expression and the values its placeholders bind, in order. */
export interface SqlFilter {
  text: string;
  values: SqlBoundValue[];
}

/** One parameter's condition before placeholders are numbered: the column and the values compared each way. */
interface ParamCondition {
  column: string;
  byValue: SqlBoundValue[];
  byText: string[];
  /** Compared by value and by text (sql-value.ts, `checked`): each is bound twice. */
  byBoth: string[];
}

/**
 * The rows of a list plan as a boolean SQL expression to AND into the query's WHERE clause (before ORDER BY and
 * LIMIT, so that pages are full): `all` -> TRUE, `none` -> FALSE, `some` -> one parenthesised AND of `=` / `IN`
 * conditions per entry, joined by OR (parenthesised as a whole). Only `=` and `IN` over bound values, never an empty IN, never a negation.
 * Every parameter of the plan must have a column; a malformed plan, bad options or a plan with more values than the
 * engine binds are ListPlanErrors. `list` may be undefined so that strict TypeScript takes `authOf(req).list` as it
 * is (only list operations carry a plan); undefined is a ListPlanError that says so. See docs/list-filtering.md#into-queries.
 */
export function toSql(list: ListPlan | undefined, options: ToSqlOptions): SqlFilter {
  const sql = readSqlOptions(options);
  const plan = readListPlan(list);
  // SQLite reads TRUE and FALSE as the columns "true" and "false" when the table has them: 1 = 1 cannot be misread.
  const always = { text: sql.dialect === 'sqlite' ? '1 = 1' : 'TRUE', values: [] };
  const never = { text: sql.dialect === 'sqlite' ? '1 = 0' : 'FALSE', values: [] };
  if (plan.kind === 'all') return always;
  if (plan.kind === 'none') return never;

  const entries = plan.anyOf.map((entry) => entryConditions(entry, sql)).filter((entry): entry is ParamCondition[] => entry !== null);
  const count = entries.reduce((sum, entry) => sum + entry.reduce((inner, param) => inner + param.byValue.length + param.byText.length + 2 * param.byBoth.length, 0), 0);
  const limit = MAX_SQL_PARAMETERS[sql.dialect] - (sql.startAt - 1);
  if (count > limit) {
    throw new ListPlanError(
      'ERR_SVCGATE_LIST_SIZE',
      `the list plan binds ${count} values, more than the ${limit} ${sql.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'} accepts in one statement${sql.startAt > 1 ? ` after $${sql.startAt - 1}` : ''}`,
      'give the callers fewer owned values (claims), or filter this list another way (e.g. a join on a table of the caller\'s values)',
    );
  }
  if (entries.length === 0) return never;

  const values: SqlBoundValue[] = [];
  const placeholder = (value: SqlBoundValue): string => {
    values.push(value);
    return sql.dialect === 'sqlite' ? '?' : `$${sql.startAt + values.length - 1}`;
  };
  const compare = (left: string, list: readonly SqlBoundValue[]): string =>
    list.length === 1 ? `${left} = ${placeholder(list[0]!)}` : `${left} IN (${list.map(placeholder).join(', ')})`;
  const paramText = ({ column, byValue, byText, byBoth }: ParamCondition): string => {
    const parts = [];
    if (byValue.length > 0) parts.push(compare(column, byValue));
    if (byText.length > 0) parts.push(compare(`CAST(${column} AS TEXT)`, byText));
    if (byBoth.length > 0) parts.push(`(${compare(column, byBoth)} AND ${compare(`CAST(${column} AS TEXT)`, byBoth)})`);
    return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
  };
  const text = boundedJoin(
    'OR',
    entries.map((entry) => `(${boundedJoin('AND', entry.map(paramText))})`),
  );
  // One operand whatever its entries: `WHERE status = $1 AND ${text}` without parentheses would skip the app's own condition for every entry but the first.
  return { text: entries.length > 1 ? `(${text})` : text, values };
}

/** The conditions of one entry; null when a parameter keeps no value a driver can carry (the entry selects nothing). */
function entryConditions(entry: ListCondition, sql: SqlOptions): ParamCondition[] | null {
  const conditions: ParamCondition[] = [];
  for (const [param, values] of Object.entries(entry)) {
    const column = quoteColumn(mappedName(sql.columns, param, 'columns'), param);
    const condition: ParamCondition = { column, byValue: [], byText: [], byBoth: [] };
    for (const value of values) {
      const comparison = sqlComparison(value, sql.dialect);
      if (comparison === 'value') condition.byValue.push(boundValue(value, sql.dialect));
      else if (comparison === 'text') condition.byText.push(value as string);
      else if (comparison === 'checked') condition.byBoth.push(value as string);
    }
    conditions.push(condition);
  }
  // Checked after every parameter's column, so that an unmapped parameter is an error whatever the values.
  return conditions.some((condition) => condition.byValue.length + condition.byText.length + condition.byBoth.length === 0) ? null : conditions;
}
