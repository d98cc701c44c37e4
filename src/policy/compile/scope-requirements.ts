import { z } from 'zod';
import { quoted } from './quoted-text';
import { ConfigError, jsonPath } from './config-error';
import { parseWith } from './parse-with';

/** One OpenAPI security requirement: scheme name -> scopes. */
type Requirement = Record<string, string[]>;

/** RFC 6749, 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
const SCOPE_FIX = 'a scope is one or more printable ASCII characters without spaces, " or \\ (RFC 6749, 3.3), e.g. accounts:read';

/** Why `scope` is not an RFC 6749 scope-token, or undefined when it is one. */
function scopeProblem(scope: string): string | undefined {
  return SCOPE_TOKEN.test(scope) ? undefined : `${quoted(scope)} is not a scope: ${scope === '' ? 'it is empty' : 'it holds a space, a double quote, a backslash or a character outside printable ASCII'}`;
}

/** A zod list of scope-tokens, for adapter options validated with parseWith. */
export const scopeListSchema = z.array(
  z.string({ error: 'a scope must be a string' }).superRefine((scope, context) => {
    const problem = scopeProblem(scope);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: `${problem} (${SCOPE_FIX})` });
  }),
  { error: 'requiredScopes must be a list of scopes' },
);

/** Scopes given outside a document (compileAcl's `requiredScopes`), validated. */
export function readScopeList(value: unknown, file: string, at: readonly (string | number)[]): string[] {
  return parseWith(scopeListSchema, value, file, at, 'write a list such as ["accounts:read"]');
}

/**
 * The scope alternatives of an operation: for each security requirement that includes the guarded
 * scheme, the scopes listed for that scheme plus `required`, sorted and each once. Any one met is
 * enough. None (an empty list) when some alternative needs no scope: it is always met.
 *
 * A request is decided with the bearer scheme once it met the other schemes of one of these
 * requirements, without saying which one. When the requirements differ both in their other schemes
 * and in their scopes, the scopes a request needs would depend on that, so such a document is
 * refused rather than decided on the most lenient alternative.
 */
export function scopeAlternatives(requirements: readonly Requirement[], scheme: string, required: readonly string[], file: string, at: readonly (string | number)[]): string[][] {
  const alternatives = new Map<string, string[]>();
  const others = new Set<string>();
  requirements.forEach((requirement, index) => {
    if (!Object.hasOwn(requirement, scheme)) return;
    const listed = requirement[scheme]!;
    listed.forEach((scope, position) => {
      const problem = scopeProblem(scope);
      if (problem !== undefined) throw new ConfigError(file, jsonPath([...at, index, scheme, position]), problem, SCOPE_FIX);
    });
    const scopes = [...new Set([...listed, ...required])].sort();
    alternatives.set(JSON.stringify(scopes), scopes);
    others.add(JSON.stringify(Object.keys(requirement).filter((name) => name !== scheme).sort()));
  });
  if (alternatives.size > 1 && others.size > 1) {
    throw new ConfigError(
      file,
      jsonPath(at),
      `the requirements with ${scheme} name different scopes and different other schemes, so the scopes a request needs would depend on which other schemes it met`,
      `give every requirement with ${scheme} the same other schemes, or the same scopes`,
    );
  }
  const list = [...alternatives.values()];
  return list.some((scopes) => scopes.length === 0) ? [] : list;
}
