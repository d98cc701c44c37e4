/**
 * Which items of a list operation (`x-acl-list`) a caller may see: the policy's `plan` rule, read
 * back with each value typed by the item parameter's schema. SPEC 11; docs/list-filtering.md.
 */

/** One value a row's field must equal: typed by the item parameter's schema (see ListPlan). */
export type ListValue = string | number | boolean;

/**
 * One way a row can be readable: every named field holds one of its listed values (AND over the
 * fields, IN over each list). Keyed by the item's owned parameter names, e.g. `{ orderId: [7, 9] }`.
 * Every list holds at least one value.
 */
export type ListCondition = Record<string, ListValue[]>;

/**
 * The rows of a list operation that the caller could read one by one with the item operation:
 * - `all`: every row (the caller's role may `read:any` the item);
 * - `none`: no row (the adapters answer 403 before the handler runs);
 * - `some`: the rows that meet at least one entry of `anyOf` (OR over entries).
 *
 * Values are typed by the item parameter's schema: integers and numbers are JavaScript numbers,
 * except a value no double holds exactly (an integer beyond 2^53), which stays its canonical decimal
 * text, e.g. `'9007199254740993'`; booleans are booleans; strings and untyped parameters are strings.
 */
export interface ListPlan {
  kind: 'all' | 'none' | 'some';
  /** Empty unless `kind` is `some`; then at least one entry, each with at least one field. */
  anyOf: ListCondition[];
  /** The attribute globs granted on the item (accesscontrol notation); empty for `none`. */
  attributes: string[];
}
