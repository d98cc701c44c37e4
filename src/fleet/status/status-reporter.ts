import { backoffSeconds } from '../../net/backoff-delay';
import { keepProcessAliveUntil } from '../../net/keep-process-alive';
import { postBody, PostAnswerError } from '../../net/post-body';
import { INSTANCE_ID } from '../../policy/evaluate/instance-id';
import { svcgateVersion } from '../../policy/evaluate/svcgate-version';
import { countDecisions, type DecisionCounter } from './decision-counter';
import { statusMetrics } from './status-metrics';
import { statusReport, type StatusReport } from './status-report';
import { statusReporterOptions, type StatusReporterOptions } from './status-reporter-options';

export interface StatusReporterStatus {
  /** Reports the service accepted. */
  reported: number;
  /** ISO 8601 time of the last accepted report. */
  lastReport: string | null;
  /** The last failed report: why, when, and the service's HTTP status when it answered. */
  lastError: { message: string; at: string; httpStatus?: number } | null;
  /** Reports failed in a row; the next waits longer with each. */
  consecutiveFailures: number;
  /** A change not reported yet: it goes with the next report, which is built when it is sent. */
  pending: boolean;
}

export interface StatusReporter {
  /** The report as it would be sent now (what OPA's status plugin would POST). */
  report(): StatusReport;
  status(): StatusReporterStatus;
  /** Sends the current report now (after the one in flight, if any); never rejects, the outcome is in status(). An awaited flush keeps the process alive until it settles. */
  flush(): Promise<void>;
  /** Stops the timer and the subscriptions, then sends a last report if a change is not reported yet; an awaited close keeps the process alive until then. */
  close(): Promise<void>;
}

/** The first retry waits about a second; each failure doubles it, up to maxBackoffSeconds. */
const RETRY_BASE_SECONDS = 1;

/**
 * Uploads status reports in the shape OPA's status plugin sends (labels, bundles, decision_logs,
 * plugins, metrics), so that a control plane that manages OPA fleets sees this replica as one of
 * them: on start, after each poll of a watched bundle consumer (an activation, an unchanged check,
 * a failure), and every `intervalSeconds`. One report at a time, built when it is sent: a slow or down service delays
 * reports, never queues them, and never throws into the application.
 */
export function createStatusReporter(options: StatusReporterOptions): StatusReporter {
  const config = statusReporterOptions(options);
  const labels = { id: INSTANCE_ID, version: svcgateVersion(), ...config.labels };
  const decisions: DecisionCounter | undefined = config.metrics ? countDecisions() : undefined;
  let reported = 0;
  let lastReport: string | null = null;
  let lastError: StatusReporterStatus['lastError'] = null;
  let failures = 0;
  let pending = false;
  let inFlight: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const report = (): StatusReport => {
    const logs = config.decisionLogs?.status();
    return statusReport({
      labels,
      bundles: config.bundles.map((consumer) => consumer.status()),
      decisionLogs: logs,
      metrics: config.metrics ? statusMetrics({ decisions: decisions?.counts(), decisionLogs: logs }) : undefined,
    });
  };

  const send = async (): Promise<void> => {
    pending = false;
    try {
      const body = Buffer.from(JSON.stringify(report()));
      await postBody(config.url, body, { 'content-type': 'application/json' }, config.headers, config.timeoutMs);
      reported += 1;
      failures = 0;
      lastReport = new Date().toISOString();
    } catch (error) {
      // Not reported: the state it held is sent again, as it is then, at the retry.
      pending = true;
      failures += 1;
      const httpStatus = error instanceof PostAnswerError ? { httpStatus: error.status } : {};
      lastError = { message: error instanceof Error ? error.message : String(error), at: new Date().toISOString(), ...httpStatus };
    }
  };

  /** The next report: at once for a change, after the backoff after a failure, else the heartbeat. */
  const schedule = () => {
    clearTimeout(timer);
    if (closed) return;
    const delaySeconds = failures > 0 ? backoffSeconds(RETRY_BASE_SECONDS, failures - 1, config.maxBackoffSeconds) : pending ? 0 : config.intervalSeconds;
    timer = setTimeout(() => {
      // A report out now (a flush) reschedules when it ends.
      if (inFlight !== undefined) return;
      pending = true;
      void upload();
    }, delaySeconds * 1000);
    timer.unref();
  };

  /** Starts a report unless one is out (whatever changes meanwhile goes with the next). */
  const upload = (): Promise<void> => {
    inFlight ??= send().finally(() => {
      inFlight = undefined;
      schedule();
    });
    return inFlight;
  };

  const changed = () => {
    pending = true;
    // While a report is out or a retry waits, the change goes with that one: never more than one.
    if (inFlight === undefined && failures === 0) schedule();
  };

  const unsubscribe = config.bundles.map((consumer) => consumer.subscribe(changed));
  changed();

  return {
    report,
    status: () => ({ reported, lastReport, lastError: lastError && { ...lastError }, consecutiveFailures: failures, pending }),
    flush: () =>
      keepProcessAliveUntil(
        (async () => {
          if (inFlight !== undefined) await inFlight;
          pending = true;
          await upload();
        })(),
      ),
    close: () => {
      closed = true;
      clearTimeout(timer);
      for (const stop of unsubscribe) stop();
      decisions?.stop();
      const last = async () => {
        if (inFlight !== undefined) await inFlight;
        if (pending && failures === 0) await upload();
      };
      return keepProcessAliveUntil(last());
    },
  };
}
