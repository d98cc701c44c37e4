import { svcgateVersion } from '../policy/evaluate/svcgate-version';
import type { Attributes, OtelApi, OtelTracer } from './optional-api';

/** The span every guarded request's decision gets (attributes in attribute-names.ts). */
export const DECISION_SPAN = 'svcgate.decide';

let noopProvider: unknown;
let delegate: unknown;
let tracer: OtelTracer | undefined;

/**
 * svcgate's tracer from the registered TracerProvider, or undefined when none is registered. The
 * API's global provider is a proxy that delegates to its no-op provider until an SDK registers
 * one; a proxy made here delegates to that same no-op provider, which tells it apart. The tracer
 * is taken again when the provider changes (an app that registers a new one). Without that
 * method (another API), spans are made and their isRecording() decides.
 */
export function activeTracer(api: OtelApi): OtelTracer | undefined {
  const provider = api.trace.getTracerProvider();
  if (typeof provider.getDelegate !== 'function') return (tracer ??= provider.getTracer('svcgate', svcgateVersion()));
  noopProvider ??= new api.ProxyTracerProvider().getDelegate();
  const registered = provider.getDelegate();
  if (registered === noopProvider) return undefined;
  if (registered !== delegate) {
    delegate = registered;
    tracer = provider.getTracer('svcgate', svcgateVersion());
  }
  return tracer;
}

/**
 * Records a `svcgate.decide` span from `startTime` to `endTime` (epoch milliseconds), a child of
 * the active span (the request's, with an HTTP instrumentation). It is made once the decision is
 * known, so nothing is held across an awaited decision. Its attributes are built only when the
 * span records (a sampler may drop it). `fault` (a reason) sets the status to error; a deny is no fault.
 */
export function decisionSpan(api: OtelApi, tracer: OtelTracer, startTime: number, endTime: number, attributes: () => Attributes, fault?: string): void {
  const span = tracer.startSpan(DECISION_SPAN, { startTime }, api.context.active());
  if (span.isRecording()) {
    span.setAttributes(attributes());
    if (fault !== undefined) span.setStatus({ code: api.SpanStatusCode.ERROR, message: fault });
  }
  span.end(endTime);
}
