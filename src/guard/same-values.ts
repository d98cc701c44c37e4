import type { OperationFacts, ParamSpec } from '../policy/compile/data-document';
import type { PolicyInput } from '../policy/evaluate/evaluator';
import { ownedParams } from '../policy/request/owned-params';
import { RequestValidationError } from '../policy/request/request-validation-error';
import { serializeBodyValue } from '../policy/request/serialize-param';

/**
 * Refuses the request when the handler will get another value for an owned parameter than the
 * one decided on. Hosts parse values again after the guard: @oas-tools/core hands its controllers
 * `res.locals.oas.params`, turning integers into JavaScript numbers (rounding those beyond 2^53)
 * and reading label and matrix styles its own way; a SvcApi method gets its argument through its
 * zod schema, which may transform it. `handlerValue` gives the value as the handler will see it.
 */
export function sameValues(operation: OperationFacts, input: PolicyInput, handlerValue: (param: ParamSpec) => unknown, handler: string): RequestValidationError | undefined {
  for (const { key, param } of ownedParams(operation)) {
    const decided = input.params?.[key];
    // Nothing sent: the host may fill in a default, but an absent value owns nothing, so the decision does not rest on it.
    if (decided === undefined || decided.length === 0) continue;
    const handled = serializeBodyValue(param, handlerValue(param));
    if (handled.length !== decided.length || handled.some((element, index) => element !== decided[index])) {
      const where = param.in === 'body' ? 'body property' : `${param.in} parameter`;
      return new RequestValidationError('ERR_SVCGATE_PARAM', `${handler} reads the ${where} ${param.name} as another value than the one sent (a number beyond 2^53, a style or a schema that changes it)`);
    }
  }
  return undefined;
}
