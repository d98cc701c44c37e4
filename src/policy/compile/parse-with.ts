import { ConfigError, jsonPath } from './config-error';

/**
 * What parseWith needs of a zod schema, written out so that this file's declarations do not import
 * zod (they ship in the package). Every zod schema of output T meets it.
 */
export interface SafeParsing<T> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } };
}

/**
 * Validates `value` with a zod schema and turns the first issue into a ConfigError whose path
 * points inside the file. `fix` says what a valid value looks like.
 */
export function parseWith<T>(schema: SafeParsing<T>, value: unknown, file: string, at: readonly (string | number)[], fix: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const path = [...at, ...issue.path.map((key) => (typeof key === 'number' ? key : String(key)))];
  throw new ConfigError(file, jsonPath(path), issue.message, fix);
}
