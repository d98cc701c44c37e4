/*
 * The public option types are written out as interfaces, for their TSDoc (hover, TypeDoc); the
 * zod schemas still validate the values at run time. These types tie the two together at compile
 * time: next to each schema, `true satisfies SchemaMatches<typeof schema, TheInterface>;` fails
 * `tsc` as soon as a field is in one and not the other, or differs in type or in being optional.
 * The statement has no run-time effect. Nothing here is exported from a public entry point.
 */

/** true when every value of each type is a value of the other. */
type MutuallyAssignable<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * Mutual assignability alone misses an optional field that only one side has (an object without
 * it is still assignable to the other), so the keys are compared as well.
 */
type SameKeys<A, B> = MutuallyAssignable<keyof A, keyof B>;

/** The fields both sides have but type differently, or make optional on one side only (Pick keeps the `?`). */
type DifferingFields<A, B> = { [K in keyof A & keyof B]: MutuallyAssignable<Pick<A, K>, Pick<B, K>> extends true ? never : K }[keyof A & keyof B];

/**
 * What a zod schema accepts, as `z.input` reads it: from the `_zod.input` member of its type.
 * Written out so that this file's declarations do not import zod (they ship in the package).
 */
type InputOf<Schema extends ZodTyped> = Schema['_zod']['input'];

/** A zod schema, as far as InputOf needs one. */
type ZodTyped = { _zod: { input: unknown } };

/**
 * `true` when what the schema accepts (`z.input`) and the interface are the same object type; else
 * an object that names the fields that differ, which `tsc` prints in its error. For a schema given
 * as a shape (fields spread into several z.object calls), pass `z.ZodObject<typeof shape>`.
 */
export type SchemaMatches<Schema extends ZodTyped, Interface> =
  SameKeys<InputOf<Schema>, Interface> extends true
    ? MutuallyAssignable<InputOf<Schema>, Interface> extends true
      ? true
      : { typedDifferently: DifferingFields<InputOf<Schema>, Interface> }
    : { onlyInSchema: Exclude<keyof InputOf<Schema>, keyof Interface>; onlyInInterface: Exclude<keyof Interface, keyof InputOf<Schema>> };
