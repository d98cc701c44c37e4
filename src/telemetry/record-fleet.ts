import { ATTRIBUTES } from './attribute-names';
import { bundleChannel, decisionLogDroppedChannel, type BundleMessage, type DecisionLogDroppedMessage } from './channels';
import { contained } from './contained';
import { instruments } from './instruments';
import { openTelemetry } from './optional-api';

export { watchBundle, type WatchedBundle } from './instruments';

/**
 * One bundle event: activations and failures counted, `svcgate:bundle` published. Every poll
 * reports one, which also makes the instruments (and so the age gauge) of an SDK registered
 * after the consumer was created.
 */
export function recordBundleEvent(message: BundleMessage): void {
  const api = openTelemetry();
  if (api !== null) contained(() => {
    const metrics = instruments(api);
    if (metrics === null) return;
    if (message.type === 'activated') metrics.bundleActivations.add(1, { [ATTRIBUTES.bundleName]: message.name, [ATTRIBUTES.bundleSource]: message.source ?? 'server' });
    if (message.error !== undefined) metrics.bundleFailures.add(1, { [ATTRIBUTES.bundleName]: message.name, [ATTRIBUTES.bundleFailure]: message.error.code });
  });
  if (bundleChannel.hasSubscribers) bundleChannel.publish(message);
}

/** Decision-log events the uploader dropped: counted, and published on `svcgate:decision-log-dropped`. */
export function recordDroppedLogEvents(message: DecisionLogDroppedMessage): void {
  const api = openTelemetry();
  if (api !== null) contained(() => instruments(api)?.decisionLogDropped.add(message.count, { [ATTRIBUTES.dropReason]: message.reason }));
  if (decisionLogDroppedChannel.hasSubscribers) decisionLogDroppedChannel.publish(message);
}
