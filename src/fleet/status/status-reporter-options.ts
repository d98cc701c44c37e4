import { z } from 'zod';
import { parseWith } from '../../policy/compile/parse-with';
import { secondsSchema as seconds } from '../seconds-schema';
import type { SchemaMatches } from '../../policy/compile/schema-matches';
import type { BundleConsumer } from '../consumer/bundle-consumer';
import type { DecisionLogUploader } from '../decision-logs/decision-log-uploader';

export interface StatusReporterOptions {
  /** Where reports are POSTed as JSON: any service that takes OPA's status API (OPA posts to `<service>/status[/<partition_name>]`). */
  url: string;
  /** Sent with every report, e.g. `{ authorization: 'Bearer ...' }`. Default: none. */
  headers?: Record<string, string>;
  /** Added to the report's `labels` beside `id` and `version` (OPA's `labels` configuration); a key given here wins, as in the uploader's `labels`. Default: none. */
  labels?: Record<string, string>;
  /** Reported under `bundles.<name>`; a report is sent after each of their polls (an activation, an unchanged check, a failure). Default: none. */
  bundles?: BundleConsumer[];
  /** Reported under `decision_logs` and in the metrics. Default: none. */
  decisionLogs?: DecisionLogUploader;
  /** Seconds between reports when nothing changed: a heartbeat (OPA reports on changes and on each decision-log upload). Default `60` (seconds). */
  intervalSeconds?: number;
  /** Milliseconds for one report, connecting to the answer. Default `10000` (ms). */
  timeoutMs?: number;
  /** The longest wait between retries after failures, in seconds (exponential backoff from 1 s, with jitter). Default `60` (seconds). */
  maxBackoffSeconds?: number;
  /** Sends `metrics.prometheus`: decisions by result (counted on `svcgate:decision`), decision-log counts, process memory. Default `true`. */
  metrics?: boolean;
}

export interface StatusReporterSettings {
  url: URL;
  headers: Record<string, string>;
  labels: Record<string, string>;
  bundles: BundleConsumer[];
  decisionLogs: DecisionLogUploader | undefined;
  intervalSeconds: number;
  timeoutMs: number;
  maxBackoffSeconds: number;
  metrics: boolean;
}

const FILE = '<createStatusReporter options>';

const hasMethods = (value: unknown, ...names: string[]) => typeof value === 'object' && value !== null && names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

const schema = z
  .object({
    url: z.url({ protocol: /^https?$/, error: 'url must be an http or https URL' }),
    headers: z.record(z.string(), z.string()).default({}),
    labels: z.record(z.string(), z.string({ error: 'a label is a string, as in OPA' })).default({}),
    bundles: z
      .array(z.custom<BundleConsumer>((value) => hasMethods(value, 'status', 'subscribe'), { error: 'each of bundles is a consumer from bundleConsumer(...)' }), { error: 'bundles is a list of consumers from bundleConsumer(...)' })
      .default([])
      .refine((consumers) => new Set(consumers.map((consumer) => consumer.status().name)).size === consumers.length, { error: 'two bundle consumers have the same name, and a report keys bundles by name' }),
    decisionLogs: z.custom<DecisionLogUploader>((value) => hasMethods(value, 'status', 'log'), { error: 'decisionLogs is an uploader from createDecisionLogUploader(...)' }).optional(),
    intervalSeconds: seconds('intervalSeconds').default(60),
    timeoutMs: z.number({ error: 'timeoutMs must be a number of milliseconds' }).int().positive().max(2 ** 31 - 1).default(10_000),
    maxBackoffSeconds: seconds('maxBackoffSeconds').default(60),
    metrics: z.boolean({ error: 'metrics must be true or false' }).default(true),
  })
  .strict();

// The interface and the schema must accept the same fields (see schema-matches.ts).
true satisfies SchemaMatches<typeof schema, StatusReporterOptions>;

export function statusReporterOptions(options: StatusReporterOptions): StatusReporterSettings {
  const parsed = parseWith(schema, options, FILE, [], 'see createStatusReporter in docs/fleets.md');
  return { ...parsed, url: new URL(parsed.url), decisionLogs: parsed.decisionLogs };
}
