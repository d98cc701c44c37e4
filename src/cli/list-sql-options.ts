import type { SqlDialect } from '../list/sql-value';
import { UsageError } from './usage-error';

const DIALECTS: readonly SqlDialect[] = ['postgres', 'sqlite'];

/** What `explain --sql <dialect> [--column <param>=<column>]...` asks for: the plan as toSql writes it. */
export interface ListSqlRequest {
  dialect: SqlDialect;
  /** The columns given with --column; every other plan parameter is its own column's name. */
  columns: Record<string, string>;
}

/** --sql and --column as given, checked before any document is read; undefined without --sql. */
export function readListSqlOptions(sql: string | undefined, column: readonly string[] | undefined): ListSqlRequest | undefined {
  if (sql === undefined) {
    if (column !== undefined) throw new UsageError('--column names the column of a plan parameter in the SQL that --sql prints; give --sql postgres|sqlite too');
    return undefined;
  }
  if (!(DIALECTS as readonly string[]).includes(sql)) throw new UsageError(`--sql must be ${DIALECTS.join(' or ')}, got ${JSON.stringify(sql)}`);
  // A null prototype: a parameter may be named constructor or __proto__.
  const columns: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const mapping of column ?? []) {
    const equals = mapping.indexOf('=');
    const [param, name] = [mapping.slice(0, equals), mapping.slice(equals + 1)];
    if (equals < 1 || name === '') throw new UsageError(`--column ${mapping}: write <parameter>=<column>, e.g. --column orderId=order_id`);
    if (Object.hasOwn(columns, param)) throw new UsageError(`--column maps ${param} twice (to ${columns[param]} and to ${name}); give each parameter one column`);
    columns[param] = name;
  }
  return { dialect: sql as SqlDialect, columns };
}
