import type { ListValue } from '../policy/evaluate/list-plan';
import { canonicalInteger } from '../policy/request/canonical-number';
import { hasUnpairedSurrogate } from './unpaired-surrogate';

export type SqlDialect = 'postgres' | 'sqlite';

/** A value as toSql binds it: SQLite drivers take no booleans (better-sqlite3 refuses them), so 1 and 0 there. */
export type SqlBoundValue = string | number | boolean;

/**
 * How one plan value is compared with its column, so that the comparison is exact in both engines:
 * - `value`: `column = ?` (or IN), which an index serves. Numbers, booleans, text that no engine reads as a number,
 *   and canonical integers within 64 bits (SQLite's INTEGER and PostgreSQL's BIGINT read `'9007199254740993'` exactly);
 * - `text`: `CAST(column AS TEXT) = ?`, for text an engine would read as a number with rounding or not at all: an
 *   integer beyond 64 bits (SQLite turns it into a REAL, so `'-9223372036854775809'` would equal the smallest BIGINT;
 *   PostgreSQL fails with "out of range"), or a decimal no double holds (`'0.10000000000000001'` would equal 0.1). Such
 *   a value equals the column's own text: exactly the canonical-text equality the per-item decision uses, which no
 *   number of a 64-bit or double column meets, while a text column compares as before;
 * - `checked`: PostgreSQL, an integer beyond 2^53 within 64 bits: `(column = ? AND CAST(column AS TEXT) = ?)`. PostgreSQL
 *   reads `'9007199254740993'` into a `double precision` (or `real`) column rounded, equal to the row 9007199254740992,
 *   which the per-item decision denies; no double holds such an integer, so its text never equals a double's text,
 *   while a BIGINT or NUMERIC column's text is the canonical integer. The `=` keeps the column's index in use;
 * - `nothing`: a value the driver cannot carry (a lone surrogate, written as U+FFFD; a NUL in PostgreSQL, whose text
 *   holds none): it equals no stored value, so it is left out.
 */
export type SqlComparison = 'value' | 'text' | 'checked' | 'nothing';

export function sqlComparison(value: ListValue, dialect: SqlDialect): SqlComparison {
  if (typeof value !== 'string') return 'value';
  if (hasUnpairedSurrogate(value) || (dialect === 'postgres' && value.includes('\u0000'))) return 'nothing';
  if (!readAsNumber(value)) return 'value';
  if (!isInt64Text(value)) return 'text';
  return dialect === 'postgres' && !Number.isSafeInteger(Number(value)) ? 'checked' : 'value';
}

export function boundValue(value: ListValue, dialect: SqlDialect): SqlBoundValue {
  if (typeof value === 'boolean' && dialect === 'sqlite') return value ? 1 : 0;
  return value;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function isInt64Text(text: string): boolean {
  // Canonical text only: '-0' (like '007') is text an engine reads as another integer's, compared as text.
  if (text.length > 20 || canonicalInteger(text) !== text) return false;
  const integer = BigInt(text);
  return integer >= INT64_MIN && integer <= INT64_MAX;
}

/**
 * Text an engine may read as a number when it meets a numeric column: digits with signs, points, exponents,
 * underscores (PostgreSQL 16) and the spaces SQLite and PostgreSQL skip, and the integers in another base that
 * PostgreSQL 16 reads into integer and numeric columns (`'0x10'`, `'0o20'`, `'0b10000'` are 16 there). A superset is
 * safe: `text` is exact for any value, only slower.
 */
function readAsNumber(text: string): boolean {
  return /[0-9]/.test(text) && (/^[0-9+\-.eE_ \t\n\v\f\r]*$/.test(text) || /^[ \t\n\v\f\r]*[+-]?0[xXoObB][0-9a-fA-F_]*[ \t\n\v\f\r]*$/.test(text));
}
