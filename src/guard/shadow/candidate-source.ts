import { ConfigError } from '../../policy/compile/config-error';
import type { DecisionSource, PolicySource } from '../../policy/evaluate/decision-source';

/** How an adapter makes a source of the candidate, as it makes its active one from `acl` or `policy`. */
export interface CandidateBuilders {
  /** A permission declaration (object or file), compiled with the adapter's document and options. */
  local(declaration: unknown): DecisionSource;
  /** A bundleConsumer or remoteOpa, connected to the adapter's operations. */
  connect(source: PolicySource): DecisionSource;
}

export function isPolicySource(value: unknown): value is PolicySource {
  return typeof (value as { connect?: unknown } | null)?.connect === 'function';
}

/**
 * The candidate of `shadow.source` for `scheme`. With `keyed`, the adapter's `acl`/`policy` are
 * keyed by scheme, and so may the candidate be (`{ bearerAuth: ... }`); a record keyed by another
 * of `schemes` names a scheme this shadow is not for.
 */
export function candidateSource(given: unknown, scheme: string, file: string, builders: CandidateBuilders, keyed: { schemes: readonly string[] } | undefined): DecisionSource {
  const candidate = keyed === undefined ? given : forScheme(given, scheme, keyed.schemes, file);
  if (isPolicySource(candidate)) return builders.connect(candidate);
  try {
    return builders.local(candidate);
  } catch (error) {
    // An inline declaration's errors name a path inside it: say that it is the shadow's, not the active `acl`.
    if (!(error instanceof ConfigError) || !error.file.startsWith('<inline')) throw error;
    const at = candidate === given ? '$.shadow.source' : `$.shadow.source.${scheme}`;
    throw new ConfigError(file, `${at}${error.path.slice(1)}`, error.problem, error.fix);
  }
}

function forScheme(given: unknown, scheme: string, schemes: readonly string[], file: string): unknown {
  if (typeof given !== 'object' || given === null || isPolicySource(given) || Array.isArray(given)) return given;
  const keys = Object.keys(given);
  if (keys.length !== 1 || !schemes.includes(keys[0]!)) return given;
  if (keys[0] !== scheme) {
    throw new ConfigError(file, `$.shadow.source.${keys[0]}`, `the shadow candidate is keyed by ${keys[0]}, but the shadow is for ${scheme}`, `key it by ${scheme}, or leave the key out`);
  }
  return (given as Record<string, unknown>)[scheme];
}
