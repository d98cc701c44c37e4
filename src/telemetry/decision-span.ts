import type { Attributes, OtelApi, OtelTracer } from './optional-api';

/** The span every guarded request's decision gets (attributes in attribute-names.ts). */
export const DECISION_SPAN = 'svcgate.decide';

let tracer: OtelTracer | undefined;

/**
 * Records a `svcgate.decide` span from `startTime` to `endTime` (epoch milliseconds), a child of
 * the active span (the request's, with an HTTP instrumentation). It is made once the decision is
 * known, so nothing is held across an awaited decision. Its attributes are built only when the
 * span records: with the API alone (no SDK) or a sampler that drops it, this costs one no-op span.
 * `fault` (a reason) sets the status to error; a deny is no fault.
 */
export function decisionSpan(api: OtelApi, startTime: number, endTime: number, attributes: () => Attributes, fault?: string): void {
  // The API's tracer is a proxy that follows a provider registered after it was taken.
  tracer ??= api.trace.getTracer('svcgate');
  const span = tracer.startSpan(DECISION_SPAN, { startTime }, api.context.active());
  if (span.isRecording()) {
    span.setAttributes(attributes());
    if (fault !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, message: fault });
  }
  span.end(endTime);
}
