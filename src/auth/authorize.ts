import type { VerifiedPayload } from '../policy/build-input';
import { decide, type DecisionResult } from '../policy/decide';
import { denied, type Evaluator } from '../policy/evaluator';
import type { OperationMatch } from '../policy/match-operation';
import type { AclOptions } from './acl-options';
import { logDecision } from './decision-log';
import { requestParts, type HttpRequest } from './request-parts';

/**
 * request -> input -> evaluator -> decision, logged; an error on the way is a deny. Immediate when
 * no ownership check has to be awaited, so the common path costs no extra turn of the event loop.
 */
export function authorize(evaluator: Evaluator, match: OperationMatch, req: HttpRequest, payload: VerifiedPayload | undefined, options: AclOptions): DecisionResult | Promise<DecisionResult> {
  const startedAt = options.decisionLog ? performance.now() : 0;
  const done = (result: DecisionResult): DecisionResult => {
    logDecision(options.decisionLog, evaluator, result, startedAt);
    return result;
  };
  const failed = (error: unknown): DecisionResult => done({ decision: denied(`authorization failed: ${error instanceof Error ? error.message : String(error)}`), input: { operation: match.key } });
  let pending: DecisionResult | Promise<DecisionResult>;
  try {
    pending = decide(evaluator, match.key, match.operation, requestParts(req, match.pathParams), payload, options);
  } catch (error) {
    return failed(error);
  }
  return pending instanceof Promise ? pending.then(done, failed) : done(pending);
}
