import type { OperationSpec } from '../policy/data-document';
import { paramKey } from '../policy/data-document';
import type { PolicyInput } from '../policy/evaluator';
import { RequestValidationError } from '../policy/request-validation-error';
import { serializeBodyValue } from '../policy/serialize-param';

/**
 * @oas-tools/core hands its controllers `res.locals.oas.params`, values it parsed itself: it turns
 * integers into JavaScript numbers (rounding those beyond 2^53), reads label and matrix styles its
 * own way and reads query names as lodash paths. The guard decides on its own exact reading; this
 * refuses the request when the host's reading of an owned value is another value, so that what
 * was decided is what the controller gets.
 */
export function hostReadsTheSame(operation: OperationSpec, input: PolicyInput, oas: { params?: Record<string, unknown>; body?: unknown } | undefined): RequestValidationError | undefined {
  for (const param of Object.values(operation.params)) {
    const decided = input.params?.[paramKey(param)];
    // Nothing sent: the host may fill in a default, but an absent value owns nothing, so the decision does not rest on it.
    if (!param.owned || decided === undefined || decided.length === 0) continue;
    const source = param.in === 'body' ? oas?.body : oas?.params;
    const value = typeof source === 'object' && source !== null && Object.hasOwn(source, param.name) ? (source as Record<string, unknown>)[param.name] : undefined;
    const host = serializeBodyValue(param, value);
    if (host.length !== decided.length || host.some((element, index) => element !== decided[index])) {
      return new RequestValidationError('ERR_SVCGATE_PARAM', `@oas-tools/core reads the ${param.in === 'body' ? 'body property' : `${param.in} parameter`} ${param.name} as another value than it was sent (a number beyond 2^53, or a style it reads differently)`);
    }
  }
  return undefined;
}
