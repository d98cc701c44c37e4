// Preloaded with --require by bench/telemetry.mjs: the OpenTelemetry SDK registered as an app
// registers it, recording every span (always sampled) and the metrics, with exporters that take
// each batch and drop it, so that the cost measured is svcgate's and the SDK's, not a backend's.
const { metrics, trace } = require('@opentelemetry/api');
const { AggregationTemporality, MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');

let exportedSpans = 0;
const spanExporter = {
  export(spans, done) {
    exportedSpans += spans.length;
    done({ code: 0 });
  },
  shutdown: async () => undefined,
};
const metricExporter = {
  export(_metrics, done) {
    done({ code: 0 });
  },
  selectAggregationTemporality: () => AggregationTemporality.CUMULATIVE,
  forceFlush: async () => undefined,
  shutdown: async () => undefined,
};
trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(spanExporter)] }));
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 10_000 })] }));
// Asked by bench/telemetry.mjs after a warm-up, to show that spans were recorded.
process.on('SIGUSR2', () => console.log(`SPANS ${exportedSpans}`));
