import type { Attributes, OtelApi, OtelTracer } from './optional-api';

/** The span every guarded request's decision gets (attributes in attribute-names.ts). */
export const DECISION_SPAN = 'svcgate.decide';

let tracer: OtelTracer | undefined;
let noopProvider: unknown;

/**
 * Whether a TracerProvider is registered. The API's global provider is a proxy that delegates to
 * its no-op provider until an SDK registers one; a proxy made here delegates to that same no-op
 * provider, which tells it apart. Without that method (another API), spans are made and their
 * isRecording() decides.
 */
export function tracing(api: OtelApi): boolean {
  const provider = api.trace.getTracerProvider();
  if (typeof provider.getDelegate !== 'function') return true;
  noopProvider ??= new api.ProxyTracerProvider().getDelegate();
  return provider.getDelegate() !== noopProvider;
}

/**
 * Records a `svcgate.decide` span from `startTime` to `endTime` (epoch milliseconds), a child of
 * the active span (the request's, with an HTTP instrumentation). It is made once the decision is
 * known, so nothing is held across an awaited decision. Its attributes are built only when the
 * span records (a sampler may drop it). Called only when tracing(api).
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
