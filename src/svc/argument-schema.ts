/*
 * What SvcApi needs of a method's schema, written out rather than imported from zod: the published
 * declarations then never import zod, whose own declarations fail to type-check in a project
 * without esModuleInterop (TS1259 in zod/v4/locales) when skipLibCheck is false. A zod schema
 * meets these types as it is: `static schemas = { createUser: z.object(...) }` type-checks.
 */

/** One problem found in a method's argument, as the 400 answer lists it under `issues` (zod's issue, read through the fields users need). */
export interface ValidationIssue {
  /** What kind of problem, e.g. `invalid_type` or `too_small`. */
  readonly code: string;
  /** Where in the argument, e.g. `['address', 'city']`; empty for the argument as a whole. */
  readonly path: readonly PropertyKey[];
  /** What is wrong, in words. */
  readonly message: string;
}

/** What a schema's `safeParse` answers: the value the method gets, or the issues. */
export type ArgumentParseResult = { success: true; data: unknown } | { success: false; error: { issues: readonly ValidationIssue[] } };

/** A method's argument schema from `static schemas = { <method>: ... }`: a zod schema, or anything with the same `safeParse`. */
export interface ArgumentSchema {
  /** Checks `value` without throwing, as zod's `safeParse` does; `data` is what the method gets. */
  safeParse(value: unknown): ArgumentParseResult;
}
