import { buildInput, type RequestParts, type VerifiedPayload } from './build-input';
import { paramKey, type OperationSpec, type ParamSpec } from './data-document';
import type { Decision, Evaluator, PolicyInput } from './evaluator';

/** Decides ownership instead of the claims: gets the verified payload, the binding name and the value. */
export type CheckOwnership = (payload: VerifiedPayload, binding: string, value: unknown) => boolean | Promise<boolean>;

export interface DecideOptions {
  roleBinding?: string;
  checkOwnership?: CheckOwnership;
}

export interface DecisionResult {
  decision: Decision;
  input: PolicyInput;
}

/**
 * The one road from a request to a decision, shared by every adapter. With `checkOwnership`,
 * the policy is asked first without ownership results; only if it answers that `own` was granted
 * (and `any` was not) are the checks run and the policy asked again with their results.
 * Without checks to run the answer is immediate (no promise), which the adapters' hot path uses;
 * `await` works on both.
 */
export function decide(
  evaluator: Evaluator,
  key: string,
  operation: OperationSpec,
  request: RequestParts,
  payload: VerifiedPayload | undefined,
  options: DecideOptions = {},
): DecisionResult | Promise<DecisionResult> {
  const { checkOwnership } = options;
  const input = buildInput(key, operation, request, payload, options.roleBinding);
  if (checkOwnership) input.checks = {};
  const first = evaluator.evaluate(input);
  if (first.allow || first.possession !== 'own' || !checkOwnership || payload === undefined) return { decision: first, input };

  return runChecks(checkOwnership, operation, input, payload).then((checks) => {
    const checked: PolicyInput = { ...input, checks };
    return { decision: evaluator.evaluate(checked), input: checked };
  });
}

async function runChecks(check: CheckOwnership, operation: OperationSpec, input: PolicyInput, payload: VerifiedPayload): Promise<Record<string, boolean>> {
  const owned = Object.values(operation.params).filter((param) => param.owned);
  const results = await Promise.all(
    owned.map(async (param) => {
      const values = input.params?.[paramKey(param)] ?? [];
      if (values.length === 0 || values.includes(null)) return false;
      try {
        // Anything but exactly `true` is "not owned", and so is a throw or a rejection.
        return (await check(payload, param.binding, typedValue(param, values as string[]))) === true;
      } catch {
        return false;
      }
    }),
  );
  return Object.fromEntries(owned.map((param, index) => [paramKey(param), results[index]!]));
}

/** The deserialized value handed to checkOwnership: a number, boolean or string, or a list of them. */
function typedValue(param: ParamSpec, values: string[]): unknown {
  const itemType = param.type === 'array' ? param.items : param.type;
  const typed = values.map((value) => (itemType === 'integer' || itemType === 'number' ? Number(value) : itemType === 'boolean' ? value === 'true' : value));
  return param.type === 'array' ? typed : typed[0];
}
