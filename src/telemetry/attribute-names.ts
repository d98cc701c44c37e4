/**
 * The attributes svcgate puts on its span and metrics, all under `svcgate.` (documented in
 * docs/telemetry.md). Metric attributes take only bounded values: operation ids, results, codes
 * and bundle names, never paths, parameter values or claims.
 */
export const ATTRIBUTES = {
  /** `<METHOD> <path template>` of the operation, e.g. `GET /users/{userId}`. */
  operation: 'svcgate.operation',
  /** allow, deny, unauthenticated, invalid_request, unavailable or error. */
  result: 'svcgate.result',
  allow: 'svcgate.allow',
  /** The role the deciding grant came through. */
  role: 'svcgate.role',
  /** own or any: the best possession granted for the action. */
  possession: 'svcgate.possession',
  /** A hash of policy.wasm, or where the remote OPA is. */
  policyRevision: 'svcgate.policy.revision',
  dataRevision: 'svcgate.data.revision',
  /** Whether the decision came from the decision cache. */
  cacheHit: 'svcgate.cache.hit',
  /** The code of a token (or DPoP proof) that failed verification, e.g. ERR_JWT_EXPIRED. */
  verificationFailure: 'svcgate.verification.failure',
  bundleName: 'svcgate.bundle.name',
  /** server or persisted: where an activated bundle came from. */
  bundleSource: 'svcgate.bundle.source',
  /** The code of a bundle check that failed, e.g. ERR_SVCGATE_BUNDLE_SIGNATURE. */
  bundleFailure: 'svcgate.bundle.failure',
  /** buffer_full or too_large: why a decision-log event was dropped. */
  dropReason: 'svcgate.decision_log.drop_reason',
  /** same, widened, narrowed, changed, unavailable or error: what the shadow candidate decided beside the active policy. */
  shadowOutcome: 'svcgate.shadow.outcome',
} as const;

/** What came of a guarded request, as the span, the metrics and the channel name it. */
export type DecisionResultName = 'allow' | 'deny' | 'unauthenticated' | 'invalid_request' | 'unavailable' | 'error';
