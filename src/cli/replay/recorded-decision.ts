import type { ListSpec } from '../../policy/compile/data-document';
import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { decisionFrom, MALFORMED_DECISION, type Decision, type PolicyInput } from '../../policy/evaluate/evaluator';

/**
 * A logged `result` as the Decision it was, or undefined when it is not one (then nothing is
 * compared with it). Read as the guard reads the policy's answer (decisionFrom): the same shape,
 * and a plan that agrees with its decision and takes its values from the input's claims.
 *
 * A plan is read with the candidate's list operation (`list`), which types its values: OPA logs
 * the policy's canonical strings (`"7"`), svcgate the typed values the handler got (`7`), and
 * decisionChange compares typed values. Both are read back to the canonical strings first, which
 * String() gives exactly (see numberValue). A plan logged for an operation the candidate does not
 * list is left out: allow and attributes are compared.
 */
export function recordedDecision(result: Record<string, unknown>, list: ListSpec | undefined, claims: PolicyInput['claims']): Decision | undefined {
  const planned = list !== undefined && result.list !== undefined;
  const decision = planned ? decisionFrom({ ...result, list: canonicalPlan(result.list) }, list, claims ?? {}) : decisionFrom(result);
  // decisionFrom answers a deny of its own for a malformed result; a recorded deny may give that reason too (the guard's answer to OPA's malformed one).
  const recordedReason = Array.isArray(result.reasons) ? result.reasons[0] : undefined;
  if (decision.reasons[0] === MALFORMED_DECISION && recordedReason !== MALFORMED_DECISION) return undefined;
  return decision;
}

/** The plan with each condition's values as canonical strings; anything that is not a plan's shape is left for listPlanFrom to refuse. */
function canonicalPlan(plan: unknown): unknown {
  if (!isPlainObject(plan) || !Array.isArray(plan.anyOf)) return plan;
  const anyOf = plan.anyOf.map((condition: unknown) =>
    isPlainObject(condition)
      ? Object.fromEntries(Object.entries(condition).map(([field, values]) => [field, Array.isArray(values) ? values.map((value: unknown) => (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value)) : values]))
      : condition,
  );
  return { ...plan, anyOf };
}
