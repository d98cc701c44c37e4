import { svcgateVersion } from '../policy/evaluate/svcgate-version';
import type { OtelApi, OtelCounter, OtelHistogram, OtelMeter, OtelMeterProvider } from './optional-api';
import { ATTRIBUTES } from './attribute-names';

/** svcgate's metric instruments on the global MeterProvider; names and units in docs/telemetry.md. */
export interface Instruments {
  decisions: OtelCounter;
  decisionDuration: OtelHistogram;
  verificationFailures: OtelCounter;
  bundleActivations: OtelCounter;
  bundleFailures: OtelCounter;
  decisionLogDropped: OtelCounter;
  shadowComparisons: OtelCounter;
}

/** A bundle consumer whose time since its last successful check the age gauge reports. */
export interface WatchedBundle {
  name: string;
  /** Epoch milliseconds of the last successful check; 0 before the first. */
  checkedAt(): number;
}

/**
 * Decisions take microseconds from the cache and up to seconds with a remote OPA or ownership
 * checks; the SDK's default buckets (0 to 10,000) are meant for milliseconds.
 */
const DURATION_BUCKETS = [0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

const watchedBundles = new Set<WatchedBundle>();
let provider: OtelMeterProvider | undefined;
let current: Instruments | null = null;

/** Reported by the age gauge until the returned function is called (the consumer's close()). */
export function watchBundle(bundle: WatchedBundle): () => void {
  watchedBundles.add(bundle);
  return () => watchedBundles.delete(bundle);
}

/**
 * The instruments of the global MeterProvider now, or null when it records nothing. The API has
 * no proxy for meters as it has for tracers (an instrument of the no-op provider stays a no-op
 * after an SDK registers), so the provider is looked up at each event and the instruments made
 * again when it changed: an app may register its SDK after creating its adapters.
 */
export function instruments(api: OtelApi): Instruments | null {
  const now = api.metrics.getMeterProvider();
  if (now !== provider) {
    provider = now;
    const meter = now.getMeter('svcgate', svcgateVersion());
    current = meter === api.createNoopMeter() ? null : created(meter);
  }
  return current;
}

function created(meter: OtelMeter): Instruments {
  const age = meter.createObservableGauge('svcgate.bundle.check.age', { unit: 's', description: 'Seconds since the bundle consumer last found its bundle current or activated a new one' });
  age.addCallback((result) => {
    const now = Date.now();
    for (const bundle of watchedBundles) {
      const checkedAt = bundle.checkedAt();
      // Never checked: no value, rather than one counting from 1970.
      if (checkedAt > 0) result.observe((now - checkedAt) / 1000, { [ATTRIBUTES.bundleName]: bundle.name });
    }
  });
  return {
    decisions: meter.createCounter('svcgate.decisions', { unit: '{decision}', description: 'Guarded requests, by result and operation' }),
    decisionDuration: meter.createHistogram('svcgate.decision.duration', { unit: 's', description: "The decision step of a guarded request: input, policy and ownership checks", advice: { explicitBucketBoundaries: DURATION_BUCKETS } }),
    verificationFailures: meter.createCounter('svcgate.verification.failures', { unit: '{failure}', description: 'Requests refused 401 because their token or DPoP proof did not verify, by code' }),
    bundleActivations: meter.createCounter('svcgate.bundle.activations', { unit: '{activation}', description: 'Policy bundles activated' }),
    bundleFailures: meter.createCounter('svcgate.bundle.failures', { unit: '{failure}', description: 'Bundle checks that failed (download, refusal, activation, persisting), by code' }),
    decisionLogDropped: meter.createCounter('svcgate.decision_log.dropped', { unit: '{event}', description: 'Decision-log events the uploader dropped' }),
    shadowComparisons: meter.createCounter('svcgate.shadow.comparisons', { unit: '{decision}', description: 'Sampled requests the shadow candidate decided, by operation and outcome (same, widened, narrowed, changed, unavailable, error)' }),
  };
}
