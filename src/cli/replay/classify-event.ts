import { isPlainObject } from '../../policy/compile/documents/plain-object';
import { ENTRYPOINT, PLAN_ENTRYPOINT, type PolicyInput } from '../../policy/evaluate/evaluator';

/**
 * Why an event is not decided again, each counted in the report:
 * - skipped, nothing was decided or it is logged elsewhere: `shadow` (a shadow divergence, which
 *   repeats a decision already logged), `other_path` (another entrypoint or query of OPA's),
 *   `refused_401` (credentials refused before any decision), `other_schemes` (another security
 *   scheme let the request in: no policy decision), `unavailable` (503: nothing could decide),
 *   `bad_request` (400: the request was refused before the policy was asked), `failed` (the guard
 *   failed on its way to a decision);
 * - not replayable, a decision that cannot be made again as it was: `masked` (a part of the input
 *   or result was erased or replaced, by OPA's mask or the uploader's: never decided on a guess),
 *   `incomplete` (no input with an operation, or no result), `malformed_result` (a recorded result
 *   that is not svcgate's decision), `unknown_operation` (the candidate has no such operation),
 *   `ownership_unchecked` (the candidate needs checkOwnership results the recorded request never
 *   asked for), `scopes_unrecorded` (the candidate asks for scopes the recorded input could not
 *   hold: an input carries only the token's scopes that the operation named then).
 */
export const SKIPPED = ['shadow', 'other_path', 'refused_401', 'other_schemes', 'unavailable', 'bad_request', 'failed'] as const;
export const NOT_REPLAYABLE = ['masked', 'incomplete', 'malformed_result', 'unknown_operation', 'ownership_unchecked', 'scopes_unrecorded'] as const;
export type SkipReason = (typeof SKIPPED)[number];
export type NotReplayableReason = (typeof NOT_REPLAYABLE)[number];

/** An event to decide again: the recorded input and result as logged, and whether the plan entrypoint decided it. */
export interface ReplayableEvent {
  kind: 'replayable';
  input: PolicyInput;
  result: Record<string, unknown>;
  plan: boolean;
}

export type EventClass = ReplayableEvent | { kind: SkipReason | NotReplayableReason };

/** The prefixes of the guard's own denials that no policy gave (authorize.ts): a 400 refusal and a fault. */
const BAD_REQUEST = 'bad request: ';
const FAILED = 'authorization failed: ';

/** What to do with one event read from a log, svcgate's or OPA's: the checks in the order above, the first that holds. */
export function classifyEvent(event: Record<string, unknown>): EventClass {
  if (Object.hasOwn(event, 'shadow')) return { kind: 'shadow' };
  const path = entrypointOf(event.path);
  if (path !== ENTRYPOINT && path !== PLAN_ENTRYPOINT) return { kind: 'other_path' };
  if (event.status === 401) return { kind: 'refused_401' };
  if (Object.hasOwn(event, 'other_schemes')) return { kind: 'other_schemes' };
  if (masksRequestData(event.erased) || masksRequestData(event.masked)) return { kind: 'masked' };
  const { input, result } = event;
  if (!isPlainObject(input) || typeof input.operation !== 'string' || !isPlainObject(result)) return { kind: 'incomplete' };
  if (result.unavailable !== undefined) return { kind: 'unavailable' };
  const first = Array.isArray(result.reasons) ? result.reasons[0] : undefined;
  if (result.allow === false && typeof first === 'string') {
    if (first.startsWith(BAD_REQUEST)) return { kind: 'bad_request' };
    if (first.startsWith(FAILED)) return { kind: 'failed' };
  }
  return { kind: 'replayable', input: input as unknown as PolicyInput, result, plan: path === PLAN_ENTRYPOINT };
}

/**
 * The entrypoint an event's `path` names, however it is spelled: `svcgate/authz/decision` (OPA's
 * REST API and svcgate), with slashes around it, or as a reference, `data.svcgate.authz.decision`.
 */
function entrypointOf(path: unknown): string | undefined {
  if (typeof path !== 'string') return undefined;
  const reference = /^data\.[\w.]+$/.test(path) ? path.slice('data.'.length).replace(/\./g, '/') : path;
  return reference.replace(/^\/+|\/+$/g, '');
}

/**
 * `erased` and `masked` list the JSON pointers OPA's mask (and the uploader's `mask`) removed or
 * replaced. One at or under /input or /result means the event no longer holds what was decided.
 * A list that is not a list of pointers is taken as masking everything: fail closed.
 */
function masksRequestData(pointers: unknown): boolean {
  if (pointers === undefined) return false;
  if (!Array.isArray(pointers)) return true;
  // '' points at the whole event.
  return pointers.some((pointer) => typeof pointer !== 'string' || pointer === '' || /^\/(input|result)(\/|$)/.test(pointer));
}
