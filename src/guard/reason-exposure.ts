import type { Decision } from '../policy/evaluate/evaluator';
import { RequestValidationError } from '../policy/request/request-validation-error';

/** What a 403 body says when the reasons are not exposed: the decision log still has them. */
export const FORBIDDEN_MESSAGE = 'access to this operation is denied';
/** What a 503 body says when the reasons are not exposed (they may name the bundle or OPA server and its errors). */
export const UNAVAILABLE_MESSAGE = 'the authorization policy cannot decide now; retry later';
/**
 * What a 400 of the guard says when the reasons are not exposed. The refusals the decision step
 * makes all name a parameter the ACL's ownership rests on ("reads the query parameter accountId as
 * another value"), which a client could not otherwise tell from the others.
 */
export const REFUSED_MESSAGE = 'a parameter of the request can be read more than one way, so it is not decided; send each parameter once, in its plain form';

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
export function shownReasons(decision: Decision, exposeReasons: boolean, generic: string): string {
  return exposeReasons ? decision.reasons.join('; ') : generic;
}

/** The refusal a 400 of the decision step answers with: `refused` when reasons are exposed, else one with the same code and a generic message. */
export function shownRefusal(refused: RequestValidationError, exposeReasons: boolean): RequestValidationError {
  return exposeReasons ? refused : new RequestValidationError(refused.code, REFUSED_MESSAGE);
}
