import { channel } from 'node:diagnostics_channel';
import type { Decision } from '../policy/evaluate/evaluator';
import type { DecisionResultName } from './attribute-names';

/**
 * svcgate's events on Node's diagnostics_channel, for tools that do not use OpenTelemetry: each
 * is published only while its channel has subscribers, and needs no package.
 */
export const CHANNELS = {
  decision: 'svcgate:decision',
  verificationFailure: 'svcgate:verification-failure',
  bundle: 'svcgate:bundle',
  decisionLogDropped: 'svcgate:decision-log-dropped',
  shadow: 'svcgate:shadow',
} as const;

/** On `svcgate:decision`: a decision the guard made (or could not make) for a request. */
export interface DecisionMessage {
  operation: string;
  result: DecisionResultName;
  allow: boolean;
  role: string | null;
  possession: Decision['possession'];
  policyRevision: string;
  dataRevision: string;
  cacheHit: boolean;
  /** From the request's input to the decision, ownership checks included. */
  durationSeconds: number;
  /** The decision itself, reasons included; shared with the decision cache, so frozen when cached. */
  decision: Decision;
}

/** On `svcgate:verification-failure`: a request refused 401 before any decision. */
export interface VerificationFailureMessage {
  operation: string;
  /** The error's code, e.g. ERR_JWT_EXPIRED (see docs/telemetry.md). */
  code: string;
  /** What the 401 told the client. */
  description: string;
}

/** On `svcgate:bundle`: what one bundle check (or start-up from the persisted copy) came to. */
export interface BundleMessage {
  type: 'activated' | 'unchanged' | 'failed' | 'persist-failed';
  /** The consumer's bundle name. */
  name: string;
  /** The active bundle's revision after the event; null while none is active. */
  revision: string | null;
  /** Where an activated bundle came from. */
  source?: 'server' | 'persisted';
  error?: { code: string; message: string };
}

/** On `svcgate:decision-log-dropped`: decision-log events the uploader gave up. */
export interface DecisionLogDroppedMessage {
  count: number;
  /** buffer_full: the oldest, past bufferSizeLimitEvents; too_large: one event larger than a whole batch. */
  reason: 'buffer_full' | 'too_large';
}

/** On `svcgate:shadow`: one sampled request the shadow candidate decided beside the active policy. */
export interface ShadowMessage {
  operation: string;
  outcome: ShadowOutcome;
  /** The active decision, which answered the request. */
  active: Decision;
  /** The candidate's; absent on `error`. */
  shadow?: Decision;
  /** The candidate's revisions when it decided. */
  policyRevision: string;
  dataRevision: string;
}

/** What one shadow comparison came to: no difference, a difference in diff's words, or no candidate decision. */
export type ShadowOutcome = 'same' | 'widened' | 'narrowed' | 'changed' | 'unavailable' | 'error';

export const decisionChannel = channel(CHANNELS.decision);
export const verificationFailureChannel = channel(CHANNELS.verificationFailure);
export const bundleChannel = channel(CHANNELS.bundle);
export const decisionLogDroppedChannel = channel(CHANNELS.decisionLogDropped);
export const shadowChannel = channel(CHANNELS.shadow);
