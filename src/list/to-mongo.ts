import type { ListCondition, ListPlan, ListValue } from '../policy/evaluate/list-plan';
import { fieldPath } from './field-path';
import { mappedName } from './mapped-name';
import { readListPlan } from './read-list-plan';
import { hasUnpairedSurrogate } from './unpaired-surrogate';

/** A MongoDB query filter (plain objects and arrays, as `find` takes it). */
export type MongoFilter = Record<string, unknown>;

/**
 * The rows of a list plan as a MongoDB filter: `all` -> `{}`, `none` -> `{ _id: { $in: [] } }`, `some` ->
 * `{ $or: [{ <field>: { $in: [values] }, ... }] }` (one object per entry; `$and` of one object per parameter when
 * two parameters of an entry share a field, so neither replaces the other). Values go as the plan holds them; a lone
 * surrogate, which BSON would write as U+FFFD, is left out. Every parameter must have a field; `list` undefined (no
 * list operation) is a ListPlanError, as in toSql. See docs/list-filtering.md#into-queries.
 */
export function toMongo(list: ListPlan | undefined, fields: Record<string, string>): MongoFilter {
  const plan = readListPlan(list);
  if (plan.kind === 'all') return {};
  // `$in` of nothing: MongoDB and in-memory engines such as mingo both read it as no document.
  if (plan.kind === 'none') return { _id: { $in: [] } };
  return { $or: plan.anyOf.map((entry) => entryFilter(entry, fields)) };
}

function entryFilter(entry: ListCondition, fields: unknown): MongoFilter {
  const conditions = Object.entries(entry).map(([param, values]): [string, unknown] => {
    const field = mappedName(fields, param, 'fields');
    fieldPath(field, param);
    return [field, { $in: values.filter(carried) }];
  });
  // Object.fromEntries defines own properties: a field named __proto__ stays a field (an assignment or
  // Object.assign would set the filter's prototype instead).
  if (new Set(conditions.map(([field]) => field)).size === conditions.length) return Object.fromEntries(conditions);
  return { $and: conditions.map((condition) => Object.fromEntries([condition])) };
}

function carried(value: ListValue): boolean {
  return typeof value !== 'string' || !hasUnpairedSurrogate(value);
}
