import type { BundleStatus } from '../consumer/bundle-consumer';
import type { DecisionLogUploaderStatus } from '../decision-logs/decision-log-uploader';
import { goTime } from './go-time';
import type { MetricFamily } from './status-metrics';

/** A plugin's state in OPA's words. */
export type PluginState = 'OK' | 'NOT_READY' | 'ERROR' | 'WARN';

/** One bundle in a status report: OPA's bundle status fields, with OPA's names and JSON types. */
export interface BundleReport {
  name: string;
  /** Absent before the first activation (OPA leaves it out when empty). */
  active_revision?: string;
  /** RFC 3339 as Go writes it; Go's zero time (`0001-01-01T00:00:00Z`) for what has not happened yet. */
  last_successful_activation: string;
  last_successful_download: string;
  last_successful_request: string;
  last_request: string;
  /** `snapshot` once a bundle is active: svcgate has no delta bundles. */
  type?: 'snapshot';
  /** The active bundle's bytes, compressed. */
  size?: number;
  /** OPA's per-bundle timers that svcgate measures: the last request to the bundle server, in nanoseconds. */
  metrics?: { timer_bundle_request_ns: number };
  /** On the last check's failure: OPA's `bundle_error`, the message, and svcgate's own code in `errors`. */
  code?: 'bundle_error';
  message?: string;
  errors?: { code: string; message: string }[];
  /** The bundle server's HTTP status when it answered a download other than 200 or 304. */
  http_code?: number;
}

/** The decision-log uploader's last outcome: `{}` after a successful upload, as OPA sends it. */
export interface DecisionLogsReport {
  code?: 'decision_log_error';
  message?: string;
  http_code?: number;
}

/** The body of one status report, in the shape OPA's status plugin POSTs (its UpdateRequestV1). */
export interface StatusReport {
  labels: Record<string, string>;
  bundles?: Record<string, BundleReport>;
  decision_logs?: DecisionLogsReport;
  metrics?: { prometheus: Record<string, MetricFamily> };
  plugins: Record<string, { state: PluginState; message?: string }>;
}

export interface ReportInputs {
  labels: Record<string, string>;
  bundles: BundleStatus[];
  decisionLogs?: DecisionLogUploaderStatus;
  metrics?: Record<string, MetricFamily>;
}

/** Builds a report from the statuses as they are now: nothing is queued, only the latest state is ever sent. */
export function statusReport(inputs: ReportInputs): StatusReport {
  const plugins: StatusReport['plugins'] = {};
  const watched = inputs.bundles.length > 0;
  if (watched) plugins.bundle = { state: inputs.bundles.every((status) => status.ready) ? 'OK' : 'NOT_READY' };
  if (inputs.decisionLogs !== undefined) plugins.decision_logs = { state: 'OK' };
  plugins.status = { state: 'OK' };
  const logs = inputs.decisionLogs && decisionLogsReport(inputs.decisionLogs);
  // Fields in the order OPA writes them.
  return {
    labels: { ...inputs.labels },
    ...(watched ? { bundles: Object.fromEntries(inputs.bundles.map((status) => [status.name, bundleReport(status)])) } : {}),
    ...(logs === undefined ? {} : { decision_logs: logs }),
    ...(inputs.metrics === undefined ? {} : { metrics: { prometheus: inputs.metrics } }),
    plugins,
  };
}

function bundleReport(status: BundleStatus): BundleReport {
  const report: BundleReport = {
    name: status.name,
    last_successful_activation: goTime(status.lastSuccessfulActivation),
    last_successful_download: goTime(status.lastSuccessfulDownload),
    last_successful_request: goTime(status.lastSuccessfulRequest),
    last_request: goTime(status.lastRequest),
  };
  if (status.revision !== null) report.active_revision = status.revision;
  if (status.size !== null) Object.assign(report, { type: 'snapshot', size: status.size });
  if (status.requestDurationMs !== null) report.metrics = { timer_bundle_request_ns: Math.round(status.requestDurationMs * 1e6) };
  const error = status.lastError;
  if (error !== null) Object.assign(report, { code: 'bundle_error', message: error.message, errors: [{ code: error.code, message: error.message }], ...(error.httpStatus === undefined ? {} : { http_code: error.httpStatus }) });
  return report;
}

/** Absent until the first upload has come to something, as OPA's section is. */
function decisionLogsReport(status: DecisionLogUploaderStatus): DecisionLogsReport | undefined {
  const error = status.lastError;
  if (status.consecutiveFailures > 0 && error !== null) {
    return { code: 'decision_log_error', message: error.message, ...(error.httpStatus === undefined ? {} : { http_code: error.httpStatus }) };
  }
  return status.lastUpload === null ? undefined : {};
}
