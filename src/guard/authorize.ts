import type { VerifiedPayload } from '../policy/request/build-input';
import { isCachedDecision } from '../policy/evaluate/cached-decisions';
import { decide, type DecisionResult } from '../policy/evaluate/decide';
import type { DecisionSource } from '../policy/evaluate/decision-source';
import { denied, type PolicyInput } from '../policy/evaluate/evaluator';
import { thenOrNow } from '../policy/evaluate/then-or-now';
import type { OperationMatch } from '../policy/request/match-operation';
import { RequestValidationError } from '../policy/request/request-validation-error';
import type { DecisionOptions } from './acl-options';
import { logDecision } from './decision-log';
import { withListPlan } from './list-operations';
import { shownRefusal } from './reason-exposure';
import { requestParts, type HttpRequest } from './request-parts';
import type { DecisionResultName } from '../telemetry/attribute-names';
import { decisionsWatched, recordDecision } from '../telemetry/record-decision';

/** A decision, or a deny because the request could not be read one way (the adapter answers 400). */
export interface AuthorizeResult extends DecisionResult {
  refused?: RequestValidationError;
}

/** A host's own check that it reads the decided values the same way; an error refuses the request. */
export type ConfirmInput = (input: PolicyInput) => RequestValidationError | undefined;

/** What a host that has read the request before the guard tells it. */
export interface HostReading {
  confirm: ConfirmInput;
  /**
   * The query object the handler's values were read from, when the host read it already: the
   * guard checks that one instead of reading `req.query` again (Express 5 parses it on every read).
   */
  query?: unknown;
}

/**
 * request -> input -> evaluator -> decision, logged; an error on the way is a deny. Immediate when
 * no ownership check has to be awaited, so the common path costs no extra turn of the event loop.
 */
export function authorize(
  evaluator: DecisionSource,
  match: OperationMatch,
  req: HttpRequest,
  payload: VerifiedPayload | undefined,
  options: DecisionOptions,
  host?: HostReading,
): AuthorizeResult | Promise<AuthorizeResult> {
  const watched = decisionsWatched();
  const startedAt = options.decisionLog || watched ? performance.now() : 0;
  // faulted: the decision step threw (a deny the policy gave is no fault).
  const done = (result: AuthorizeResult, faulted = false): AuthorizeResult => {
    const refused = host?.confirm(result.input);
    const final = refused ? { decision: denied(`bad request: ${refused.message}`), input: result.input, refused } : explained(planned(result, match), payload, options.roleBinding);
    logDecision(options.decisionLog, evaluator, final, startedAt, match.operation.list !== undefined);
    options.shadow?.observe(final, match, req.res, faulted || final.refused !== undefined, payload, options);
    if (watched) recordDecision({ operation: match.key, result: resultName(final, faulted), decision: final.decision, cacheHit: isCachedDecision(result.decision), source: evaluator, startedAt });
    // The log keeps the refusal's message; the answer names the parameter only where reasons are exposed.
    return final.refused ? { ...final, refused: shownRefusal(final.refused, options.exposeReasons) } : final;
  };
  const failed = (error: unknown): AuthorizeResult => {
    const input = { operation: match.key };
    if (error instanceof RequestValidationError) return done({ decision: denied(`bad request: ${error.message}`), input, refused: error });
    return done({ decision: denied(`authorization failed: ${error instanceof Error ? error.message : String(error)}`), input }, true);
  };
  let pending: DecisionResult | Promise<DecisionResult>;
  try {
    pending = decide(evaluator, match.key, match.operation, requestParts(req, match.pathParams, host?.query), payload, options);
  } catch (error) {
    return failed(error);
  }
  return thenOrNow(pending, done, failed);
}

/** A list operation's decision as the adapters act on it: allowed only with the plan of its items (see withListPlan). */
function planned(result: AuthorizeResult, match: OperationMatch): AuthorizeResult {
  const decision = withListPlan(match.operation, result.decision);
  return decision === result.decision ? result : { ...result, decision };
}

function resultName({ decision, refused }: AuthorizeResult, faulted: boolean): DecisionResultName {
  if (refused) return 'invalid_request';
  if (faulted) return 'error';
  if (decision.unavailable) return 'unavailable';
  return decision.allow ? 'allow' : 'deny';
}

/**
 * A deny for a caller whose verified token has no role claim says so first: such a caller is
 * `anonymous`, and the policy's reasons alone ("no role of the caller is granted...") would not
 * tell the client which claim was looked for.
 */
function explained(result: AuthorizeResult, payload: VerifiedPayload | undefined, roleBinding = 'role'): AuthorizeResult {
  const { decision, input, refused } = result;
  // A refused request was never read into an input (it has no role because nothing was read), so there is nothing to explain.
  if (refused || decision.allow || decision.unavailable || payload === undefined || Object.hasOwn(input, 'role')) return result;
  const looked = roleBinding === 'role' ? 'role' : `${roleBinding}, nor role`;
  return { ...result, decision: { ...decision, reasons: [`the token has no role claim (${looked}), so the caller is anonymous`, ...decision.reasons] } };
}
