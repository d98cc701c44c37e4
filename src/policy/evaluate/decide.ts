import { buildInput, type RequestParts, type VerifiedPayload } from '../request/build-input';
import { integerValue, numberValue } from '../request/canonical-number';
import type { OperationFacts, ParamSpec } from '../compile/data-document';
import { ownedParams } from '../request/owned-params';
import type { Decision, PolicyInput } from './evaluator';
import type { DecisionSource } from './decision-source';
import { answerWithin } from './answer-within';
import { thenOrNow } from './then-or-now';

/**
 * Decides ownership instead of the claims: gets the verified payload, the binding name and the
 * parameter's value, exact, never rounded through a double:
 * - integer: a number when it is a safe integer (`/users/002` gives `2`), else a BigInt
 *   (`/users/9007199254740993` gives `9007199254740993n`);
 * - number: a number when it prints back as the same decimal (`2.5`, `0.1`), else the canonical
 *   decimal string (`/prices/9007199254740993` gives `'9007199254740993'`);
 * - boolean: a boolean; anything else: the string;
 * - array parameters: a list of these.
 * Only exactly `true` (or a promise of it) within `checkOwnershipTimeoutMs` (default 5 s) owns;
 * anything else, a throw, a rejection or no answer in time is "not owned".
 */
export type CheckOwnership = (payload: VerifiedPayload, binding: string, value: unknown) => boolean | Promise<boolean>;

/** How long a checkOwnership call may take before it counts as "not owned", unless configured. */
const DEFAULT_CHECK_OWNERSHIP_TIMEOUT_MS = 5000;

/** How {@link decide} reads the role and decides ownership (the adapters pass their own options). */
export interface DecideOptions {
  /** The claim that carries the role(s), as a claim path (`groups`, `realm_access.roles`). Default `role`. */
  roleBinding?: string;
  /** Decides ownership instead of comparing the parameter with a claim (see CheckOwnership). Default: the claim comparison. */
  checkOwnership?: CheckOwnership;
  /** Milliseconds a checkOwnership call may take; past it the parameter is not owned and its late answer ignored. Default 5000. */
  checkOwnershipTimeoutMs?: number;
}

export interface DecisionResult {
  decision: Decision;
  input: PolicyInput;
}

/**
 * The one road from a request to a decision, shared by every adapter. With `checkOwnership`,
 * the policy is asked first without ownership results; only if it answers that `own` was granted
 * (and `any` was not) and the token has the scopes the operation needs are the checks run and
 * the policy asked again with their results.
 * Without checks to run and with a local source the answer is immediate (no promise), which the
 * adapters' hot path uses; `await` works on both.
 */
export function decide(
  source: DecisionSource,
  key: string,
  operation: OperationFacts,
  request: RequestParts,
  payload: VerifiedPayload | undefined,
  options: DecideOptions = {},
): DecisionResult | Promise<DecisionResult> {
  const input = buildInput(key, operation, request, payload, options.roleBinding);
  if (options.checkOwnership) input.checks = {};
  const first = source.evaluate(input);
  return thenOrNow(first, (decision) => checkedIfOwned(source, decision, operation, input, payload, options));
}

/**
 * With checkOwnership, asks it and then `source` again when `first` (the source's answer without
 * ownership results) granted `own` only. Also used by a shadow candidate that needs the checks
 * the active decision did not (shadow-runner.ts).
 */
export function checkedIfOwned(
  source: DecisionSource,
  first: Decision,
  operation: OperationFacts,
  input: PolicyInput,
  payload: VerifiedPayload | undefined,
  options: DecideOptions,
): DecisionResult | Promise<DecisionResult> {
  const { checkOwnership } = options;
  // Ownership cannot make up for a missing scope, so checkOwnership is not asked then.
  if (first.allow || first.possession !== 'own' || first.scopes.length > 0 || !checkOwnership || payload === undefined) return { decision: first, input };

  const timeoutMs = options.checkOwnershipTimeoutMs ?? DEFAULT_CHECK_OWNERSHIP_TIMEOUT_MS;
  return runChecks(checkOwnership, timeoutMs, operation, input, payload).then(async (checks) => {
    const checked: PolicyInput = { ...input, checks };
    return { decision: await source.evaluate(checked), input: checked };
  });
}

async function runChecks(check: CheckOwnership, timeoutMs: number, operation: OperationFacts, input: PolicyInput, payload: VerifiedPayload): Promise<Record<string, boolean>> {
  const owned = ownedParams(operation);
  const results = await Promise.all(
    owned.map(async ({ key, param }) => {
      const values = input.params?.[key] ?? [];
      if (values.length === 0 || values.includes(null)) return false;
      try {
        // Only exactly `true` owns: anything else, a rejection or no answer in time does not.
        return (await answerWithin(check(payload, param.binding, typedValue(param, values as string[])), timeoutMs)) === true;
      } catch {
        return false;
      }
    }),
  );
  return Object.fromEntries(owned.map(({ key }, index) => [key, results[index]!]));
}

/** The value handed to checkOwnership, read back from its canonical elements (see CheckOwnership). */
function typedValue(param: ParamSpec, values: string[]): unknown {
  const itemType = param.type === 'array' ? param.items : param.type;
  const typed = values.map((value) => (itemType === 'integer' ? integerValue(value) : itemType === 'number' ? numberValue(value) : itemType === 'boolean' ? value === 'true' : value));
  return param.type === 'array' ? typed : typed[0];
}
