import { quoted, quotedJson } from '../policy/compile/quoted-text';
import type { ListCondition, ListPlan, ListValue } from '../policy/evaluate/list-plan';
import { ListPlanError } from './list-plan-error';

const FIX = 'pass the `list` a decision carries (req.auth.list, res.locals.oas.acl.list, the SvcApi `auth.list`) as it is';

/**
 * A ListPlan handed in by the application, checked before anything is built from it: it could be anything (a value
 * read back from a cache or a message, or written by hand in a test). Every shape the type does not allow is refused,
 * never read generously: an entry without fields or a field without values would select more rows than the policy
 * granted, and an unknown kind has no safe meaning. The plan is returned as a copy, so a later change to the
 * application's object cannot change a query half-way through building it.
 */
export function readListPlan(value: unknown): ListPlan {
  if (value === undefined) {
    // The usual cause is not a broken plan but a handler of an operation that declares no list: say so.
    throw new ListPlanError(
      'ERR_SVCGATE_LIST_PLAN',
      'there is no list plan (undefined): only a list operation carries one (req.auth.list, res.locals.oas.acl.list, the SvcApi auth.list), ' +
        'one whose OpenAPI GET declares x-acl-list (SvcApi: a method in static lists), once the guard has allowed the request',
      "declare x-acl-list: { item: '<the path whose GET reads one item>' } on this operation, or build no list query here",
    );
  }
  if (!isObject(value)) refuse('the list plan', value, 'an object { kind, anyOf, attributes }');
  const { kind, anyOf, attributes } = value as Record<string, unknown>;
  if (kind !== 'all' && kind !== 'none' && kind !== 'some') refuse('kind', kind, "'all', 'none' or 'some'");
  if (!Array.isArray(attributes) || !attributes.every((glob) => typeof glob === 'string')) {
    refuse('attributes', attributes, 'an array of attribute globs (strings)');
  }
  if (!Array.isArray(anyOf)) refuse('anyOf', anyOf, 'an array');
  if (kind !== 'some') {
    if (anyOf.length > 0) refuse('anyOf', anyOf, `an empty array when kind is '${kind}'`);
    return { kind, anyOf: [], attributes: [...attributes] };
  }
  if (anyOf.length === 0) refuse('anyOf', anyOf, "at least one entry when kind is 'some'");
  return { kind, anyOf: anyOf.map((entry, index) => readCondition(entry, `anyOf[${index}]`)), attributes: [...attributes] };
}

function readCondition(entry: unknown, where: string): ListCondition {
  if (!isObject(entry)) refuse(where, entry, 'an object of parameter name -> list of values');
  const names = Object.keys(entry);
  if (names.length === 0) refuse(where, entry, 'at least one parameter (an entry without one would select every row)');
  const condition: ListCondition = {};
  for (const name of names) {
    const values = (entry as Record<string, unknown>)[name];
    const at = `${where}[${quoted(name)}]`;
    if (!Array.isArray(values) || values.length === 0) refuse(at, values, 'a non-empty array of values');
    // defineProperty: a parameter named __proto__ stays a parameter, not the copy's prototype.
    Object.defineProperty(condition, name, { value: values.map((item, index) => readValue(item, `${at}[${index}]`)), enumerable: true, writable: true, configurable: true });
  }
  return condition;
}

function readValue(value: unknown, where: string): ListValue {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  return refuse(where, value, 'a string, a finite number or a boolean');
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(where: string, value: unknown, expected: string): never {
  throw new ListPlanError('ERR_SVCGATE_LIST_PLAN', `list plan ${where} is ${shown(value)}, not ${expected}`, FIX);
}

/** A refused value in a message: a scalar as JSON (cut short), a container by its size, so that no plan is printed whole. */
function shown(value: unknown): string {
  if (typeof value === 'bigint') return `the bigint ${value}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object' && value !== null) return `an object with ${Object.keys(value).length} keys`;
  return quotedJson(value);
}
