/**
 * `@opentelemetry/api` when the app has it, loaded at the first event and never again; null when
 * it cannot be loaded. It is an optional peer dependency: svcgate neither installs nor needs it.
 *
 * Only the part of the API that svcgate calls is typed here, structurally, so that no declaration
 * svcgate ships names the package (an app without it must still type-check against svcgate).
 * test/telemetry/optional-api.test.ts checks that the real API fits these types.
 */

export type AttributeValue = string | number | boolean;
export type Attributes = Record<string, AttributeValue>;

export interface OtelSpan {
  isRecording(): boolean;
  setAttributes(attributes: Attributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  /** Epoch milliseconds (fractions kept). */
  end(endTime?: number): void;
}

export interface OtelTracer {
  startSpan(name: string, options?: { startTime?: number }, context?: unknown): OtelSpan;
}

export interface OtelCounter {
  add(value: number, attributes?: Attributes): void;
}

export interface OtelHistogram {
  record(value: number, attributes?: Attributes): void;
}

export interface OtelObservableResult {
  observe(value: number, attributes?: Attributes): void;
}

export interface OtelObservableGauge {
  addCallback(callback: (result: OtelObservableResult) => void): void;
}

export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

export interface OtelMeter {
  createCounter(name: string, options?: OtelInstrumentOptions): OtelCounter;
  createHistogram(name: string, options?: OtelInstrumentOptions): OtelHistogram;
  createObservableGauge(name: string, options?: OtelInstrumentOptions): OtelObservableGauge;
}

export interface OtelMeterProvider {
  getMeter(name: string, version?: string): OtelMeter;
}

/** The API's global tracer provider: a proxy that delegates to the registered one. */
export interface OtelProxyTracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
  getDelegate?(): unknown;
}

export interface OtelApi {
  trace: { getTracerProvider(): OtelProxyTracerProvider };
  /** A new proxy delegates to the API's one no-op provider until one is set. */
  ProxyTracerProvider: new () => { getDelegate(): unknown };
  metrics: { getMeterProvider(): OtelMeterProvider };
  context: { active(): unknown };
  /** The API's one no-op meter: what a provider that records nothing gives. */
  createNoopMeter(): OtelMeter;
  SpanStatusCode: { ERROR: number };
}

let api: OtelApi | null | undefined;

/** The API, or null without it; the first call loads it, every later one is a variable read. */
export function openTelemetry(): OtelApi | null {
  if (api === undefined) api = load();
  return api;
}

function load(): OtelApi | null {
  try {
    // require, not import(): svcgate's build is CommonJS (its ESM entries wrap it), and an event
    // is recorded within the request's own turn, which an import() promise would leave.
    return require('@opentelemetry/api') as OtelApi;
  } catch (error) {
    // Not installed: nothing is recorded, and this is never tried again. Installed but broken: said once.
    if ((error as { code?: unknown } | null)?.code !== 'MODULE_NOT_FOUND') {
      process.emitWarning(`@opentelemetry/api could not be loaded, so svcgate records no spans or metrics: ${error instanceof Error ? error.message : String(error)}`, { code: 'SVCGATE_TELEMETRY' });
    }
    return null;
  }
}
