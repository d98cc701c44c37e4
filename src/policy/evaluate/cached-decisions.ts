import type { Decision } from './evaluator';

/** The decisions a decision cache holds; a decision found here was served from one. */
const cached = new WeakSet<Decision>();

/**
 * The copy of `decision` a cache keeps and serves on later hits: frozen with its lists (shared
 * with `decision`, which stays the caller's own), and known as cached, so that telemetry can tell
 * a hit from a decision just made.
 */
export function cachedCopy(decision: Decision): Decision {
  Object.freeze(decision.attributes);
  Object.freeze(decision.scopes);
  Object.freeze(decision.reasons);
  const copy = Object.freeze({ ...decision });
  cached.add(copy);
  return copy;
}

/** Whether `decision` came from a decision cache (see cachedCopy). */
export function isCachedDecision(decision: Decision): boolean {
  return cached.has(decision);
}
