import type { VerifiedPayload } from '../policy/request/build-input';
import type { DataDocument } from '../policy/compile/data-document';
import { decide } from '../policy/evaluate/decide';
import { Evaluator, type Decision, type PolicyInput } from '../policy/evaluate/evaluator';
import { createOperationMatcher } from '../policy/request/match-operation';
import { readTarget } from '../policy/request/read-target';
import { RequestValidationError } from '../policy/request/request-validation-error';
import { prefixedMatcher } from '../hosts/express/server-prefixes';
import { formatScopes } from './audit-matrix';
import { UsageError } from './usage-error';

export interface Explanation {
  request: string;
  operation: string;
  /** The scope alternatives the operation needs; [] when none. */
  scopes: string[][];
  input: PolicyInput;
  decision: Decision;
}

/** Decides one request the way the adapters do, for claims given on the command line. */
export async function explainRequest(data: DataDocument, servers: unknown, method: string, target: string, claims: VerifiedPayload | undefined, roleBinding?: string): Promise<Explanation> {
  try {
    // Read as the adapters read it: a target they refuse with 400 is refused here too.
    const { pathname, query } = readTarget(target);
    // As the server receives it (under a servers prefix), else as the document writes it.
    const match = prefixedMatcher(data.operations, servers)(method, pathname) ?? createOperationMatcher(data.operations)(method, pathname);
    if (!match) throw new UsageError(`no operation of the document matches ${method.toUpperCase()} ${pathname}`);
    const evaluator = await Evaluator.create(data);
    const { decision, input } = await decide(evaluator, match.key, match.operation, { pathParams: match.pathParams, query: new URLSearchParams(query) }, claims, roleBinding === undefined ? {} : { roleBinding });
    return { request: `${method.toUpperCase()} ${target}`, operation: match.key, scopes: match.operation.scopes, input, decision };
  } catch (error) {
    if (error instanceof RequestValidationError) throw new UsageError(`the adapters refuse ${method.toUpperCase()} ${target} with 400: ${error.message}`);
    throw error;
  }
}

export function formatExplanation({ request, operation, scopes, input, decision }: Explanation): string {
  const lines = [
    `${request} -> ${operation}`,
    `decision: ${decision.allow ? 'ALLOW' : 'DENY'}`,
    `role: ${decision.role ?? '-'}, possession: ${decision.possession ?? '-'}, attributes: ${decision.attributes.length > 0 ? decision.attributes.join(' ') : '-'}`,
    ...(scopes.length > 0 ? [`scopes needed: ${formatScopes(scopes)}`] : []),
    ...decision.reasons.map((reason) => `reason: ${reason}`),
    `input: ${JSON.stringify(input)}`,
  ];
  return `${lines.join('\n')}\n`;
}
