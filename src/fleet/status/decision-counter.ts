import type { DecisionResultName } from '../../telemetry/attribute-names';
import { decisionChannel, type DecisionMessage } from '../../telemetry/channels';

/** Decisions counted by result since the counter started. */
export type DecisionCounts = Partial<Record<DecisionResultName, number>>;

export interface DecisionCounter {
  counts(): DecisionCounts;
  stop(): void;
}

/**
 * Counts the guard's decisions from `svcgate:decision` (every adapter in the process publishes
 * there). Subscribing makes the guard time each decision, as any subscriber or OpenTelemetry
 * meter does: a clock read and a message per request.
 */
export function countDecisions(): DecisionCounter {
  const counts: DecisionCounts = {};
  const onMessage = (message: unknown) => {
    const { result } = message as DecisionMessage;
    counts[result] = (counts[result] ?? 0) + 1;
  };
  decisionChannel.subscribe(onMessage);
  return {
    counts: () => ({ ...counts }),
    stop: () => void decisionChannel.unsubscribe(onMessage),
  };
}
