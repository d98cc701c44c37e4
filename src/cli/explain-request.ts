import type { VerifiedPayload } from '../policy/build-input';
import type { DataDocument } from '../policy/data-document';
import { decide } from '../policy/decide';
import { Evaluator, type Decision, type PolicyInput } from '../policy/evaluator';
import { createOperationMatcher } from '../policy/match-operation';
import { UsageError } from './usage-error';

export interface Explanation {
  request: string;
  operation: string;
  input: PolicyInput;
  decision: Decision;
}

/** Decides one request the way the adapters do, for claims given on the command line. */
export async function explainRequest(data: DataDocument, method: string, target: string, claims: VerifiedPayload | undefined, roleBinding?: string): Promise<Explanation> {
  const url = new URL(target, 'http://svcgate.invalid');
  const match = createOperationMatcher(data.operations)(method, url.pathname);
  if (!match) throw new UsageError(`no operation of the document matches ${method.toUpperCase()} ${url.pathname}`);
  const evaluator = await Evaluator.create(data);
  const { decision, input } = await decide(evaluator, match.key, match.operation, { pathParams: match.pathParams, query: url.searchParams }, claims, roleBinding === undefined ? {} : { roleBinding });
  return { request: `${method.toUpperCase()} ${target}`, operation: match.key, input, decision };
}

export function formatExplanation({ request, operation, input, decision }: Explanation): string {
  const lines = [
    `${request} -> ${operation}`,
    `decision: ${decision.allow ? 'ALLOW' : 'DENY'}`,
    `role: ${decision.role ?? '-'}, possession: ${decision.possession ?? '-'}, attributes: ${decision.attributes.length > 0 ? decision.attributes.join(' ') : '-'}`,
    ...decision.reasons.map((reason) => `reason: ${reason}`),
    `input: ${JSON.stringify(input)}`,
  ];
  return `${lines.join('\n')}\n`;
}
