import type { Decision } from './evaluator';

/** The decisions a decision cache has served; a decision found here was served from one. */
const served = new WeakSet<Decision>();

/**
 * The copy of `decision` a cache keeps and serves on later hits: frozen with its lists (shared
 * with `decision`, which stays the caller's own). It is known as cached only once it is served
 * (see servedFromCache): registering every copy as it was stored cost a WeakSet entry per cold
 * request, which never hits, and the collector's work on all of them.
 */
export function cachedCopy(decision: Decision): Decision {
  Object.freeze(decision.attributes);
  Object.freeze(decision.scopes);
  Object.freeze(decision.reasons);
  return Object.freeze({ ...decision });
}

/** A cached copy (see cachedCopy) as a hit returns it: known from now on as served from a cache. */
export function servedFromCache(decision: Decision): Decision {
  served.add(decision);
  return decision;
}

/** Whether `decision` came from a decision cache (see servedFromCache), so that telemetry can tell a hit from a decision just made. */
export function isCachedDecision(decision: Decision): boolean {
  return served.has(decision);
}
