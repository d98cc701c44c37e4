import { quotedJson } from '../policy/compile/quoted-text';
import { ListPlanError } from './list-plan-error';
import type { SqlDialect } from './sql-value';

/** toSql's options. */
export interface ToSqlOptions {
  /** `postgres`: placeholders `$1`, `$2`, ...; `sqlite`: `?`, booleans bound as 1 and 0. */
  dialect: SqlDialect;
  /** Each owned parameter of the item operation -> its column, as the query names it (`customer_id`, `o.customer_id`). */
  columns: Record<string, string>;
  /** PostgreSQL: the number of the first placeholder (default 1), to follow the query's own `$1`..`$n`. */
  startAt?: number;
}

/**
 * The most values one statement binds: SQLite's default SQLITE_MAX_VARIABLE_NUMBER (32766 since 3.32), and the
 * 65535 parameters PostgreSQL's protocol carries (a 16-bit count; past it the server answers "bind message supplies
 * 0 parameters"). A plan beyond them is an ERR_SVCGATE_LIST_SIZE error before any SQL is built.
 */
export const MAX_SQL_PARAMETERS: Readonly<Record<SqlDialect, number>> = { sqlite: 32766, postgres: 65535 };

export interface SqlOptions {
  dialect: SqlDialect;
  columns: unknown;
  startAt: number;
}

export function readSqlOptions(options: unknown): SqlOptions {
  if (typeof options !== 'object' || options === null) refuse(`toSql's options are ${quotedJson(options)}, not an object`);
  const { dialect, columns, startAt } = options as Partial<Record<keyof ToSqlOptions, unknown>>;
  if (dialect !== 'postgres' && dialect !== 'sqlite') refuse(`dialect is ${quotedJson(dialect)}, not 'postgres' or 'sqlite'`);
  if (startAt === undefined) return { dialect, columns, startAt: 1 };
  if (dialect === 'sqlite') refuse('startAt numbers $n placeholders, and the sqlite dialect writes ? placeholders');
  if (typeof startAt !== 'number' || !Number.isInteger(startAt) || startAt < 1 || startAt > MAX_SQL_PARAMETERS.postgres) {
    refuse(`startAt is ${quotedJson(startAt)}, not an integer from 1 to ${MAX_SQL_PARAMETERS.postgres}`);
  }
  return { dialect, columns, startAt };
}

function refuse(problem: string): never {
  throw new ListPlanError('ERR_SVCGATE_LIST_OPTIONS', problem, "pass { dialect: 'postgres' | 'sqlite', columns: { <parameter>: '<column>' }, startAt?: <first $n, postgres only> }");
}
