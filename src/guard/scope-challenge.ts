import type { Decision } from '../policy/evaluate/evaluator';

/**
 * The RFC 6750 (3.1) challenge of a 403 that the token's scopes caused: what to ask the
 * authorization server for. Undefined when the deny had nothing to do with scopes. Scopes are
 * RFC 6749 scope-tokens (checked at compile time), so none can break the quoted string.
 */
export function insufficientScopeChallenge(decision: Decision): string | undefined {
  return decision.scopes.length > 0 ? `Bearer error="insufficient_scope", scope="${decision.scopes.join(' ')}"` : undefined;
}
