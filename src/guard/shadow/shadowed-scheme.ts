import { isPlainObject } from '../../policy/compile/documents/load-document';
import { ConfigError } from '../../policy/compile/config-error';
import { isPolicySource } from './candidate-source';

/** The scheme a BearerJWT shadow candidate is for, and the candidate as written for it. */
export interface ShadowedScheme {
  scheme: string;
  candidate: unknown;
  /** `$.shadow.source`, or `$.shadow.source.<scheme>` when keyed. */
  at: string;
}

/**
 * Which guarded scheme `shadow.source` is for (bearerJwtAcl and BearerJWT, whose `acl` and `policy`
 * are keyed by scheme). Keyed like them (`{ bearerAuth: <candidate> }`: one key, a security scheme
 * of the document), or unkeyed when the adapter guards a single scheme. With several guarded
 * schemes an unkeyed candidate could be meant for any of them, so it is refused rather than guessed.
 */
export function shadowedScheme(given: unknown, guarded: readonly string[], documentSchemes: readonly string[], file: string): ShadowedScheme {
  const keys = isPlainObject(given) && !isPolicySource(given) ? Object.keys(given) : [];
  const named = keys.filter((key) => documentSchemes.includes(key));
  if (named.length > 0) {
    // A declaration's top-level keys are roles; a role named like a scheme beside others would be ambiguous.
    if (named.length !== keys.length || keys.length !== 1) {
      throw new ConfigError(file, '$.shadow.source', `the shadow candidate names ${keys.join(', ')}: one candidate for one scheme is compared at a time`, `give shadow: { source: { ${named[0]}: <candidate> } } alone`);
    }
    const scheme = keys[0]!;
    if (!guarded.includes(scheme)) {
      throw new ConfigError(file, `$.shadow.source.${scheme}`, `the scheme ${scheme} has no acl or policy, so there is no decision to compare the candidate with`, `key the candidate by a guarded scheme: ${guarded.join(', ')}`);
    }
    return { scheme, candidate: (given as Record<string, unknown>)[scheme], at: `$.shadow.source.${scheme}` };
  }
  if (guarded.length === 1) return { scheme: guarded[0]!, candidate: given, at: '$.shadow.source' };
  throw new ConfigError(file, '$.shadow.source', `the adapter guards several schemes (${guarded.join(', ')}), and the shadow candidate does not say which one it is for`, `key it by its scheme, e.g. shadow: { source: { ${guarded[0]}: <candidate> } }`);
}
