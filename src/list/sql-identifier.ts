import { quoted } from '../policy/compile/quoted-text';
import { ListPlanError } from './list-plan-error';
import { hasUnpairedSurrogate } from './unpaired-surrogate';

/**
 * A column name as a quoted SQL identifier, each dotted part on its own (`o.customer_id` -> `"o"."customer_id"`), with
 * `"` doubled inside: any name, `select` or `a"b` included, reads as a name and never as SQL. Names no engine can
 * hold exactly (empty, an empty part, a NUL, a lone surrogate) are refused.
 */
export function quoteColumn(column: string, param: string): string {
  const parts = column.split('.');
  if (parts.some((part) => part.length === 0) || column.includes('\u0000') || hasUnpairedSurrogate(column)) {
    throw new ListPlanError(
      'ERR_SVCGATE_LIST_COLUMN',
      `columns[${quoted(param)}] is ${quoted(column)}, not a column name (empty, an empty dotted part, a NUL or a lone surrogate)`,
      'name the column as the query names it, e.g. "customer_id" or "o.customer_id" (a table alias and a column)',
    );
  }
  return parts.map((part) => `"${part.replace(/"/g, '""')}"`).join('.');
}
