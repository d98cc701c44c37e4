import type { Decision } from './evaluator';
import type { ListPlan } from './list-plan';

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
  if (decision.list !== undefined) freezeList(decision.list);
  const copy = Object.freeze({ ...decision });
  cached.add(copy);
  return copy;
}

/** A plan is handed to every request its decision is served to (req.auth.list), so no handler may change it for the next. */
function freezeList(list: ListPlan): void {
  for (const condition of list.anyOf) {
    for (const values of Object.values(condition)) Object.freeze(values);
    Object.freeze(condition);
  }
  Object.freeze(list.anyOf);
  Object.freeze(list.attributes);
  Object.freeze(list);
}

/** Whether `decision` came from a decision cache (see cachedCopy). */
export function isCachedDecision(decision: Decision): boolean {
  return cached.has(decision);
}
