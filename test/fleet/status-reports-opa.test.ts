import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair } from 'jose';
import { bundleConsumer, createDecisionLogUploader, createStatusReporter, type BundleConsumer, type DecisionLogUploader, type StatusReporter } from '../../src/fleet';
import { INSTANCE_ID } from '../../src/policy/evaluate/instance-id';
import { svcgateVersion } from '../../src/policy/evaluate/svcgate-version';
import { BundleServer } from '../helpers/bundle-server';
import { exampleBundle } from '../helpers/bundles';
import { jsonType, shapeDifferences } from '../helpers/json-shape';
import { opaDecision, startOpa, type OpaServer } from '../helpers/opa-server';
import { StatusCollector, type ReceivedReport } from '../helpers/status-collector';
import { tarEntry, tarGz } from '../helpers/tar-entries';

// SPEC 12.3 / issue 32 item 3: svcgate's status reports have the shape of those a real `opa run`
// POSTs to its status service. OPA and svcgate watch the same bundles (one activated, one refused
// for its missing signature, one the server answers 404), upload decision logs to the same collector, and report to it; every
// field of OPA's report is in svcgate's at the same path with the same JSON type, recursively,
// except those named below with the reason svcgate cannot state them.

jest.setTimeout(90_000);

type Json = Record<string, unknown>;

/** OPA's fields svcgate leaves out on purpose, each with its reason. */
const OPA_ONLY = [
  // svcgate has no discovery bundles.
  '$.plugins.discovery',
  // OPA's timers for parsing and compiling Rego; svcgate activates a bundle by building its policy.wasm.
  '$.bundles.*.metrics.timer_rego_load_bundles_ns',
  '$.bundles.*.metrics.timer_rego_module_compile_ns',
  '$.bundles.*.metrics.timer_rego_module_parse_ns',
  // OPA's Go runtime and HTTP server metrics are compared family by family below, not by name.
  '$.metrics.prometheus',
];
/** In the `errors` of a Rego compile error: where in the Rego source; svcgate refuses bundles for other reasons. */
const OPA_ONLY_IN_ERRORS = ['$[*].location', '$[*].details'];

const dir = mkdtempSync(join(tmpdir(), 'svcgate-status-opa-'));
const collector = new StatusCollector();
const bundles = new BundleServer();
let opa: OpaServer | undefined;
let consumers: BundleConsumer[] = [];
let uploader: DecisionLogUploader | undefined;
let reporter: StatusReporter | undefined;

afterAll(async () => {
  await reporter?.close();
  await uploader?.close();
  for (const consumer of consumers) consumer.close();
  await opa?.stop();
  await collector.stop();
  await bundles.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const isOpa = (report: ReceivedReport) => (report.body.labels as Json).version !== svcgateVersion();
const bundleOf = (report: ReceivedReport, name: string) => ((report.body.bundles ?? {}) as Record<string, Json | undefined>)[name];

test('svcgate reports every field OPA reports, with the same JSON types and the values of the same state', async () => {
  await collector.start();
  await bundles.start();
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicPem = await exportSPKI(publicKey);
  bundles.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  // A Rego compile error, for the shape of OPA's `errors` (roots of its own: it overlaps no other bundle).
  bundles.publish('broken.tar.gz', tarGz([tarEntry('.manifest', '0', Buffer.from('{"revision":"broken-1","roots":["broken"]}')), tarEntry('broken/p.rego', '0', Buffer.from('package broken\nallow if {\n'))]));

  const config = {
    services: { collector: { url: collector.url('') }, bundles: { url: bundles.url('').replace(/\/$/, '') } },
    labels: { region: 'eu-west' },
    keys: { publisher: { key: publicPem, algorithm: 'RS256' } },
    bundles: {
      svcgate: { service: 'bundles', resource: 'bundle.tar.gz', polling: { min_delay_seconds: 60, max_delay_seconds: 120 } },
      signed: { service: 'bundles', resource: 'bundle.tar.gz', signing: { keyid: 'publisher' }, polling: { min_delay_seconds: 60, max_delay_seconds: 120 } },
      broken: { service: 'bundles', resource: 'broken.tar.gz', polling: { min_delay_seconds: 60, max_delay_seconds: 120 } },
      missing: { service: 'bundles', resource: 'missing.tar.gz', polling: { min_delay_seconds: 60, max_delay_seconds: 120 } },
    },
    decision_logs: { service: 'collector', reporting: { min_delay_seconds: 1, max_delay_seconds: 1 } },
    status: { service: 'collector' },
  };
  const file = join(dir, 'opa.json');
  writeFileSync(file, JSON.stringify(config));
  opa = await startOpa(['-c', file]);
  await opaDecision(opa.url, { operation: 'GET /users/{userId}' });
  const opaReport = await collector.waitFor((report) => isOpa(report) && bundleOf(report, 'svcgate')?.active_revision === 'v1' && bundleOf(report, 'signed')?.code !== undefined && bundleOf(report, 'broken')?.errors !== undefined && bundleOf(report, 'missing')?.http_code !== undefined && report.body.decision_logs !== undefined);

  // The same bundles for svcgate: one consumer per bundle, the signed one with the key.
  const active = bundleConsumer({ url: bundles.url('bundle.tar.gz'), name: 'svcgate' });
  const signed = bundleConsumer({ url: bundles.url('bundle.tar.gz'), name: 'signed', verification: { key: publicPem, algorithm: 'RS256' } });
  const missing = bundleConsumer({ url: bundles.url('missing.tar.gz'), name: 'missing' });
  consumers = [active, signed, missing];
  uploader = createDecisionLogUploader({ url: collector.url('/logs'), labels: { region: 'eu-west' } });
  reporter = createStatusReporter({ url: collector.url('/status'), labels: { region: 'eu-west' }, bundles: consumers, decisionLogs: uploader });
  await active.ready();
  uploader.log({ decision_id: 'one', result: { allow: false } });
  await uploader.flush();
  await reporter.flush();
  const ours = await collector.waitFor((report) => !isOpa(report) && bundleOf(report, 'svcgate')?.active_revision === 'v1' && bundleOf(report, 'signed')?.code !== undefined && bundleOf(report, 'missing')?.code !== undefined && report.body.decision_logs !== undefined);

  // Sent as OPA sends it: POST /status, JSON, not compressed.
  expect({ path: ours.path, type: ours.headers['content-type'], encoding: ours.headers['content-encoding'] }).toEqual({ path: opaReport.path, type: opaReport.headers['content-type'], encoding: opaReport.headers['content-encoding'] });

  // Every field of OPA's report, at the same path, with the same JSON type (the bundles OPA alone watches aside).
  const opaBody = { ...opaReport.body, bundles: { svcgate: bundleOf(opaReport, 'svcgate'), signed: bundleOf(opaReport, 'signed'), missing: bundleOf(opaReport, 'missing') } };
  expect(shapeDifferences(opaBody, ours.body, OPA_ONLY)).toEqual([]);
  // A refusal's errors: each as an element of OPA's (its code and message).
  expect(shapeDifferences(bundleOf(opaReport, 'broken')!.errors, bundleOf(ours, 'signed')!.errors, OPA_ONLY_IN_ERRORS)).toEqual([]);
  // Each metric family as OPA's of the same type: a counter (labelled as OPA labels its gauges), a gauge.
  const families = (report: ReceivedReport) => (report.body.metrics as { prometheus: Record<string, Json & { metric: Json[] }> }).prometheus;
  const { go_memstats_mallocs_total: counter, go_info: labelledGauge } = families(opaReport);
  const labelled = (family: Json & { metric: Json[] }) => ({ ...family, metric: [{ ...family.metric[0], label: labelledGauge!.metric[0]!.label }] });
  const reference = { COUNTER: labelled(counter!), GAUGE: labelledGauge! };
  for (const family of Object.values(families(ours))) {
    const skip = family.metric.some((sample) => 'label' in sample) ? [] : ['$.metric[*].label'];
    const differences = shapeDifferences(reference[family.type as 'COUNTER' | 'GAUGE'], family, skip);
    expect({ family: family.name, differences }).toEqual({ family: family.name, differences: [] });
  }

  // The values of the same state: labels, revisions, the refusal, the plugins.
  const body = ours.body as Json & { labels: Json; bundles: Record<string, Json>; plugins: Record<string, Json> };
  expect(body.labels).toEqual({ id: INSTANCE_ID, version: svcgateVersion(), region: 'eu-west' });
  expect(body.bundles.svcgate).toMatchObject({ name: 'svcgate', active_revision: 'v1', type: 'snapshot', size: (bundleOf(opaReport, 'svcgate') as Json).size });
  expect(body.bundles.signed).toMatchObject({ name: 'signed', code: 'bundle_error', last_successful_activation: '0001-01-01T00:00:00Z', errors: [{ code: 'ERR_SVCGATE_BUNDLE_SIGNATURE' }] });
  expect(body.bundles.signed!.active_revision).toBeUndefined();
  expect(body.bundles.missing).toMatchObject({ code: 'bundle_error', http_code: 404, errors: [{ code: 'ERR_SVCGATE_BUNDLE_DOWNLOAD' }] });
  expect(bundleOf(opaReport, 'missing')).toMatchObject({ code: 'bundle_error', http_code: 404 });
  // OPA's bundle plugin is NOT_READY while one of its bundles was never activated; so is svcgate's.
  expect(body.plugins).toEqual({ bundle: { state: 'NOT_READY' }, decision_logs: { state: 'OK' }, status: { state: 'OK' } });
  const opaPlugins = opaReport.body.plugins as Record<string, Json>;
  expect({ bundle: opaPlugins.bundle, decision_logs: opaPlugins.decision_logs, status: opaPlugins.status }).toEqual(body.plugins);
  expect(body.decision_logs).toEqual({});
  // Times as Go writes them: RFC 3339 in UTC, the fraction without trailing zeros.
  for (const key of ['last_successful_activation', 'last_successful_download', 'last_successful_request', 'last_request']) {
    expect(body.bundles.svcgate![key]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z$/);
  }
  expect(jsonType((bundleOf(opaReport, 'svcgate') as Json).last_request)).toBe('string');
});
