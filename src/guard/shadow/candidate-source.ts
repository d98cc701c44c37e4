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
 * The candidate's source: a policy source connected, a declaration compiled (see
 * shadowedScheme for the candidate of a scheme-keyed adapter). `at`: where it is in the options.
 */
export function candidateSource(candidate: unknown, at: string, file: string, builders: CandidateBuilders): DecisionSource {
  if (isPolicySource(candidate)) return builders.connect(candidate);
  try {
    return builders.local(candidate);
  } catch (error) {
    // An inline declaration's errors name a path inside it: say that it is the shadow's, not the active `acl`.
    if (!(error instanceof ConfigError) || !error.file.startsWith('<inline')) throw error;
    throw new ConfigError(file, `${at}${error.path.slice(1)}`, error.problem, error.fix);
  }
}
