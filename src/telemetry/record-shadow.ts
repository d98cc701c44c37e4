import { ATTRIBUTES } from './attribute-names';
import { shadowChannel, type ShadowMessage } from './channels';
import { contained } from './contained';
import { instruments } from './instruments';
import { openTelemetry } from './optional-api';

/** One shadow comparison: counted by operation and outcome, and published on `svcgate:shadow`. */
export function recordShadowComparison(message: ShadowMessage): void {
  const api = openTelemetry();
  if (api !== null) contained(() => instruments(api)?.shadowComparisons.add(1, { [ATTRIBUTES.operation]: message.operation, [ATTRIBUTES.shadowOutcome]: message.outcome }));
  if (shadowChannel.hasSubscribers) shadowChannel.publish(message);
}
