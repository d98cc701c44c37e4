import { metrics, trace } from '@opentelemetry/api';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader, type DataPoint, type Histogram, type MetricData } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';

export interface InMemorySdk {
  /** Every span ended since the last reset. */
  spans(name?: string): ReadableSpan[];
  /** The metrics collected now (cumulative since the provider was registered). */
  collect(): Promise<MetricData[]>;
  /** The instrumentation scopes svcgate's metrics were collected under now. */
  metricScopes(): Promise<{ name: string; version?: string }[]>;
  /** The data points of one metric now; [] when it has none. */
  points<T = number>(name: string): Promise<DataPoint<T>[]>;
  resetSpans(): void;
  shutdown(): Promise<void>;
}

/**
 * The real OpenTelemetry SDK registered globally, as an app registers it: a BasicTracerProvider
 * exporting to memory, and a MeterProvider with a periodic reader (flushed on demand) exporting to memory.
 */
export function registerInMemorySdk(): InMemorySdk {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });
  trace.setGlobalTracerProvider(tracerProvider);
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  const svcgateScopes = async () => {
    metricExporter.reset();
    await reader.forceFlush();
    return metricExporter.getMetrics().flatMap((resource) => resource.scopeMetrics.filter((scope) => scope.scope.name === 'svcgate'));
  };
  const collect = async () => (await svcgateScopes()).flatMap((scope) => scope.metrics);
  return {
    spans: (name) => spanExporter.getFinishedSpans().filter((span) => name === undefined || span.name === name),
    collect,
    metricScopes: async () => (await svcgateScopes()).map((scope) => scope.scope),
    points: async <T>(name: string) => ((await collect()).find((metric) => metric.descriptor.name === name)?.dataPoints ?? []) as DataPoint<T>[],
    resetSpans: () => spanExporter.reset(),
    shutdown: async () => {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
    },
  };
}

/** The value of the point whose attributes include `attributes`; undefined when none has them. */
export function valueAt<T>(points: DataPoint<T>[], attributes: Record<string, unknown>): T | undefined {
  return points.find((point) => Object.entries(attributes).every(([key, value]) => point.attributes[key] === value))?.value;
}

export type HistogramPoint = Histogram;
