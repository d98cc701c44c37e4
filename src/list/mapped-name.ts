import { quoted } from '../policy/compile/quoted-text';
import { ListPlanError } from './list-plan-error';

/** Where a plan's parameters are named: toSql's `columns` or toMongo's and matches' `fields`. */
export type NameMap = 'columns' | 'fields';

/**
 * The column or field the application mapped a plan parameter to. Only the map's own properties count (a parameter
 * named `constructor` or `__proto__` is not mapped by Object.prototype), and an unmapped parameter is an error: its
 * condition is never dropped, which would show rows the caller may not read.
 */
export function mappedName(map: unknown, param: string, which: NameMap): string {
  const code = which === 'columns' ? 'ERR_SVCGATE_LIST_COLUMN' : 'ERR_SVCGATE_LIST_FIELD';
  const kind = which === 'columns' ? 'column' : 'field';
  if (typeof map !== 'object' || map === null || Array.isArray(map)) {
    throw new ListPlanError(code, `${which} is ${map === null ? 'null' : Array.isArray(map) ? 'an array' : typeof map}, not an object`, `pass ${which}: { <item parameter name>: '<${kind} name>' }`);
  }
  const name: unknown = Object.prototype.hasOwnProperty.call(map, param) ? (map as Record<string, unknown>)[param] : undefined;
  if (typeof name !== 'string') {
    const problem = name === undefined ? `the list plan's parameter ${quoted(param)} has no ${kind} in ${which}` : `${which}[${quoted(param)}] is a ${typeof name}, not a ${kind} name`;
    throw new ListPlanError(code, problem, `map every owned parameter of the item operation to its ${kind}, e.g. ${which}: { ${quoted(param)}: '<${kind} name>' }`);
  }
  return name;
}
