import type { Decision } from '../policy/evaluate/evaluator';
import { ATTRIBUTES, type DecisionResultName } from './attribute-names';
import { decisionChannel, verificationFailureChannel } from './channels';
import { activeTracer, decisionSpan } from './decision-span';
import { instruments } from './instruments';
import { contained } from './contained';
import { openTelemetry, type Attributes } from './optional-api';
import { stableFailureCode } from '../token/failure-code';

/** The revisions deciding now (a DecisionSource). */
interface Revisions {
  readonly policyRevision: string;
  readonly revision: string;
}

export interface GuardedDecision {
  operation: string;
  result: DecisionResultName;
  decision: Decision;
  cacheHit: boolean;
  source: Revisions;
  /** performance.now() when the decision step began. */
  startedAt: number;
}

/**
 * Whether anything records decisions: `svcgate:decision` has subscribers, or an OpenTelemetry SDK
 * is registered (a tracer or a meter provider). The guard asks once per request, before it starts
 * the clock: without the API this is a variable read and a property read, with the API alone
 * two look-ups of its global providers.
 */
export function decisionsWatched(): boolean {
  if (decisionChannel.hasSubscribers) return true;
  const api = openTelemetry();
  if (api === null) return false;
  try {
    return activeTracer(api) !== undefined || instruments(api) !== null;
  } catch {
    // A provider that throws when asked records nothing; contained() says so once if it is asked to record.
    return false;
  }
}

/** The span, the metrics and the channel message of one decision. */
export function recordDecision(record: GuardedDecision): void {
  const endedAt = performance.now();
  const seconds = (endedAt - record.startedAt) / 1000;
  const { operation, result, decision, cacheHit, source } = record;
  const api = openTelemetry();
  if (api !== null) contained(() => {
    const origin = performance.timeOrigin;
    const fault = result === 'unavailable' || result === 'error' ? (decision.reasons[0] ?? result) : undefined;
    const tracer = activeTracer(api);
    if (tracer !== undefined) decisionSpan(api, tracer, origin + record.startedAt, origin + endedAt, () => decisionAttributes(record), fault);
    const metrics = instruments(api);
    if (metrics !== null) {
      const attributes = { [ATTRIBUTES.operation]: operation, [ATTRIBUTES.result]: result };
      metrics.decisions.add(1, attributes);
      metrics.decisionDuration.record(seconds, attributes);
    }
  });
  if (decisionChannel.hasSubscribers) {
    decisionChannel.publish({ operation, result, allow: decision.allow, role: decision.role, possession: decision.possession, policyRevision: source.policyRevision, dataRevision: source.revision, cacheHit, durationSeconds: seconds, decision });
  }
}

function decisionAttributes({ operation, result, decision, cacheHit, source }: GuardedDecision): Attributes {
  const attributes: Attributes = {
    [ATTRIBUTES.operation]: operation,
    [ATTRIBUTES.result]: result,
    [ATTRIBUTES.allow]: decision.allow,
    [ATTRIBUTES.cacheHit]: cacheHit,
    [ATTRIBUTES.policyRevision]: source.policyRevision,
    [ATTRIBUTES.dataRevision]: source.revision,
  };
  if (decision.role !== null) attributes[ATTRIBUTES.role] = decision.role;
  if (decision.possession !== null) attributes[ATTRIBUTES.possession] = decision.possession;
  return attributes;
}

/**
 * A request refused 401 before any decision: a `svcgate.decide` span (result unauthenticated,
 * with the code; it starts and ends at the refusal, as the verification ran before the guard
 * knew it would fail), the decision and failure counters, and `svcgate:verification-failure`.
 */
export function recordVerificationFailure(operation: string, errorCode: string, description: string, source: Revisions): void {
  // As docs/telemetry.md says: a code of another form is one fixed value, so metric attributes stay bounded.
  const code = stableFailureCode(errorCode);
  const api = openTelemetry();
  if (api !== null) contained(() => {
    const now = performance.timeOrigin + performance.now();
    const tracer = activeTracer(api);
    if (tracer !== undefined) decisionSpan(api, tracer, now, now, () => ({
      [ATTRIBUTES.operation]: operation,
      [ATTRIBUTES.result]: 'unauthenticated',
      [ATTRIBUTES.allow]: false,
      [ATTRIBUTES.verificationFailure]: code,
      [ATTRIBUTES.policyRevision]: source.policyRevision,
      [ATTRIBUTES.dataRevision]: source.revision,
    }));
    const metrics = instruments(api);
    if (metrics !== null) {
      metrics.decisions.add(1, { [ATTRIBUTES.operation]: operation, [ATTRIBUTES.result]: 'unauthenticated' });
      metrics.verificationFailures.add(1, { [ATTRIBUTES.operation]: operation, [ATTRIBUTES.verificationFailure]: code });
    }
  });
  if (verificationFailureChannel.hasSubscribers) verificationFailureChannel.publish({ operation, code, description });
}
