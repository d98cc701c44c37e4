import type { DecisionLogUploaderStatus } from '../decision-logs/decision-log-uploader';
import type { DecisionCounts } from './decision-counter';

/**
 * One metric family as OPA's status reports carry them under `metrics.prometheus`: the JSON form
 * of Prometheus' client_model MetricFamily (names, help, type in capitals, one sample per label set).
 */
export interface MetricFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE';
  metric: MetricSample[];
}

export interface MetricSample {
  label?: { name: string; value: string }[];
  counter?: { value: number };
  gauge?: { value: number };
}

export interface MetricInputs {
  /** Absent when decisions are not counted. */
  decisions?: DecisionCounts;
  decisionLogs?: DecisionLogUploaderStatus;
}

const counter = (name: string, help: string, samples: MetricSample[]): MetricFamily => ({ name, help, type: 'COUNTER', metric: samples });
const gauge = (name: string, help: string, value: number): MetricFamily => ({ name, help, type: 'GAUGE', metric: [{ gauge: { value } }] });

/**
 * What svcgate can state in Prometheus' terms: its decisions by result, its decision-log uploads,
 * and the process's memory and start time (named as Prometheus' process collector names them).
 * OPA's Go runtime and HTTP server families have no counterpart here and are not imitated.
 */
export function statusMetrics(inputs: MetricInputs): Record<string, MetricFamily> {
  const families: MetricFamily[] = [];
  if (inputs.decisions !== undefined) {
    // allow and deny are always there, at 0 before the first request; the other results once seen.
    const counts = { allow: 0, deny: 0, ...inputs.decisions };
    const samples = Object.entries(counts).map(([result, value]) => ({ label: [{ name: 'result', value: result }], counter: { value } }));
    families.push(counter('svcgate_decisions_total', 'Guarded requests decided by svcgate since the status reporter started, by result', samples));
  }
  const logs = inputs.decisionLogs;
  if (logs !== undefined) {
    families.push(counter('svcgate_decision_log_uploaded_total', 'Decision-log events uploaded to the collector', [{ counter: { value: logs.uploaded } }]));
    families.push(counter('svcgate_decision_log_dropped_total', 'Decision-log events dropped: the oldest past the buffer limit, or larger than a batch', [{ counter: { value: logs.dropped } }]));
    families.push(gauge('svcgate_decision_log_buffered', 'Decision-log events waiting to be uploaded', logs.buffered));
  }
  families.push(gauge('process_resident_memory_bytes', 'Resident memory size in bytes', process.memoryUsage.rss()));
  families.push(gauge('process_start_time_seconds', 'Start time of the process since the Unix epoch in seconds', Math.round((Date.now() / 1000 - process.uptime()) * 1000) / 1000));
  return Object.fromEntries(families.map((family) => [family.name, family]));
}
