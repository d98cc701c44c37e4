import type { VerifiedPayload } from '../policy/build-input';
import { decide, type DecisionResult } from '../policy/decide';
import { denied, type Evaluator } from '../policy/evaluator';
import type { OperationMatch } from '../policy/match-operation';
import type { AclOptions } from './acl-options';
import { logDecision } from './decision-log';
import { requestParts, type HttpRequest } from './request-parts';

/** request -> input -> evaluator -> decision, logged; an error on the way is a deny. */
export async function authorize(evaluator: Evaluator, match: OperationMatch, req: HttpRequest, payload: VerifiedPayload | undefined, options: AclOptions): Promise<DecisionResult> {
  const startedAt = performance.now();
  let result: DecisionResult;
  try {
    result = await decide(evaluator, match.key, match.operation, requestParts(req, match.pathParams), payload, options);
  } catch (error) {
    result = { decision: denied(`authorization failed: ${error instanceof Error ? error.message : String(error)}`), input: { operation: match.key } };
  }
  logDecision(options.decisionLog, evaluator, result, startedAt);
  return result;
}
