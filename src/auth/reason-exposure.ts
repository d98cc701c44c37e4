import type { Decision } from '../policy/evaluate/evaluator';

/** What a 403 body says when the reasons are not exposed: the decision log still has them. */
export const FORBIDDEN_MESSAGE = 'access to this operation is denied';
/** What a 503 body says when the reasons are not exposed (they may name the bundle or OPA server and its errors). */
export const UNAVAILABLE_MESSAGE = 'the authorization policy cannot decide now; retry later';

/**
 * Whether 403 and 503 bodies state the policy's reasons ("role superuser is not declared in the
 * ACL", "read:own needs ownership of path parameter userId"), which describe the ACL to whoever
 * is refused: the `exposeReasons` option when given, else yes unless NODE_ENV is `production`
 * (Express's rule for error details). Called once, when an adapter is created: the environment is
 * not read per request.
 */
export function exposesReasons(option: boolean | undefined): boolean {
  return option ?? process.env.NODE_ENV !== 'production';
}

/** The message of a deny's body: the decision's reasons when exposed, else `generic`. */
export function shownReasons(decision: Decision, exposeReasons: boolean | undefined, generic: string): string {
  return exposeReasons === false ? generic : decision.reasons.join('; ');
}
