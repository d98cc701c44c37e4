import { quoted } from '../policy/compile/quoted-text';
import { ListPlanError } from './list-plan-error';
import { hasUnpairedSurrogate } from './unpaired-surrogate';

/**
 * A field name split into its dotted parts (`customer.id` -> ['customer', 'id']). Refused: an empty part, a NUL, a lone
 * surrogate, and a part starting with `$`, which MongoDB would read as an operator rather than a field.
 */
export function fieldPath(field: string, param: string): string[] {
  const parts = field.split('.');
  if (parts.some((part) => part.length === 0 || part.startsWith('$')) || field.includes('\u0000') || hasUnpairedSurrogate(field)) {
    throw new ListPlanError(
      'ERR_SVCGATE_LIST_FIELD',
      `fields[${quoted(param)}] is ${quoted(field)}, not a field path (empty, an empty dotted part, a part starting with $, a NUL or a lone surrogate)`,
      'name the field as the documents hold it, e.g. "customerId" or "customer.id"',
    );
  }
  return parts;
}

/**
 * The value at a field path of a row in memory, read through own properties only: a path never reaches
 * Object.prototype (`constructor`, `__proto__`) or a class's methods. Undefined where the path ends early.
 */
export function readField(row: unknown, path: readonly string[]): unknown {
  let value = row;
  for (const part of path) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
