import { exportPKCS8, exportSPKI, generateKeyPair } from 'jose';
import { createDecisionLogUploader, createStatusReporter, type StatusReporter, type StatusReporterOptions } from '../../src/fleet';
import { ConfigError } from '../../src/policy';
import { exampleBundle } from '../helpers/bundles';
import { configErrorOf } from '../helpers/config-error-of';
import { consumerFixture, ownerRead } from '../helpers/consumer-fixture';
import { expectNoUrlSecret, presigned } from '../helpers/presigned-url';
import { StatusCollector, type ReceivedReport } from '../helpers/status-collector';

// Issue 32 item 3: the status reporter sends a report when a watched consumer activates a bundle
// or a check fails; a down or hanging service delays reports (one at a time, retried with
// backoff), never queues them and never throws into the application; close() stops it all.

jest.setTimeout(30_000);

const fixture = consumerFixture();
let collector: StatusCollector;
const reporters: StatusReporter[] = [];

beforeEach(async () => {
  collector = new StatusCollector();
  await collector.start();
});
afterEach(async () => {
  for (const reporter of reporters.splice(0)) await reporter.close();
  await collector.stop();
});

function reporter(options: Partial<StatusReporterOptions> = {}): StatusReporter {
  const created = createStatusReporter({ url: collector.url(), maxBackoffSeconds: 0.2, ...options });
  reporters.push(created);
  return created;
}

type Bundle = Record<string, unknown>;
const bundleIn = (report: ReceivedReport, name = 'svcgate') => ((report.body.bundles ?? {}) as Record<string, Bundle>)[name];
const plugins = (report: ReceivedReport) => report.body.plugins as Record<string, { state: string }>;

/** Resolves once `condition` holds, checked every 20 ms. */
async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('reports at start, then on each activation: the new revision, the bundle plugin OK', async () => {
  const { policy, next } = fixture.consumer();
  reporter({ bundles: [policy] });
  const first = await collector.waitFor(() => true);
  expect(bundleIn(first)).toMatchObject({ name: 'svcgate', last_successful_activation: '0001-01-01T00:00:00Z' });

  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  await next('activated');
  const activated = await collector.waitFor((report) => bundleIn(report)?.active_revision === 'v1');
  expect(plugins(activated)).toMatchObject({ bundle: { state: 'OK' }, status: { state: 'OK' } });
  expect(bundleIn(activated)).toMatchObject({ type: 'snapshot', size: expect.any(Number), metrics: { timer_bundle_request_ns: expect.any(Number) } });
  expect(bundleIn(activated)!.code).toBeUndefined();

  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2' }));
  await next('activated');
  await collector.waitFor((report) => bundleIn(report)?.active_revision === 'v2');
});

test('a refused bundle is reported with bundle_error, its message and svcgate code in errors; the active revision stays', async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1', signing: { key: await exportPKCS8(privateKey), algorithm: 'RS256' } }));
  const { policy, next } = fixture.consumer({ verification: { key: await exportSPKI(publicKey), algorithm: 'RS256' } });
  reporter({ bundles: [policy] });
  await next('activated');
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'unsigned' }));
  await next('failed');
  const refused = await collector.waitFor((report) => bundleIn(report)?.code !== undefined && bundleIn(report)?.active_revision !== undefined);
  expect(bundleIn(refused)).toMatchObject({ active_revision: 'v1', code: 'bundle_error', message: expect.stringMatching(/not signed/), errors: [{ code: 'ERR_SVCGATE_BUNDLE_SIGNATURE', message: expect.stringMatching(/not signed/) }] });
  // The last good bundle still decides: the plugin is OK, as OPA's after a failed update.
  expect(plugins(refused).bundle).toEqual({ state: 'OK' });
});

test('a down service: failures counted and shown, retries with backoff (consumer events add none), then it recovers', async () => {
  const { policy, events } = fixture.consumer();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  collector.answer = 503;
  const reporting = reporter({ bundles: [policy], maxBackoffSeconds: 60 });
  await until(() => reporting.status().consecutiveFailures >= 1, 'a failure');
  expect(reporting.status()).toMatchObject({ reported: 0, pending: true, lastError: { message: `${collector.url()} answered 503`, httpStatus: 503 } });
  // The consumer polls every 50 to 100 ms, each poll an event; within the first backoffs (0.5 to 1 s,
  // then 1 to 2 s) they all wait for the retry: at most three attempts in the first 3.5 s, where
  // one attempt per event would be six.
  const seen = events.length;
  await until(() => events.length >= seen + 5, 'five consumer events');
  expect(collector.received).toBeLessThanOrEqual(3);

  // Back: the retry due gets through by itself, however many events came in the meantime (an
  // event never postpones it).
  collector.answer = 200;
  await until(() => reporting.status().reported >= 1, 'the retry after the service came back', 15_000);
  expect(reporting.status()).toMatchObject({ consecutiveFailures: 0 });
  expect(bundleIn(collector.reports.at(-1)!)?.active_revision).toBe('v1');
});

test('a service that refuses connections, then comes back: the next retry gets through', async () => {
  await collector.stop();
  const reporting = reporter({ maxBackoffSeconds: 0.1 });
  await until(() => reporting.status().consecutiveFailures >= 3, 'three failures');
  expect(reporting.status().lastError?.message).toBe(`${collector.url()} cannot be reached (ECONNREFUSED)`);
  await collector.start();
  await until(() => reporting.status().reported >= 1, 'a report after the service came back');
  expect(reporting.status().consecutiveFailures).toBe(0);
});

test('a hanging service: each report times out, never two open at once, and changes wait for the one out', async () => {
  const { policy, events } = fixture.consumer();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  collector.hang = true;
  const reporting = reporter({ bundles: [policy], timeoutMs: 300, maxBackoffSeconds: 0.05 });
  // Flushes asked together share one report.
  const flushes = Array.from({ length: 5 }, () => reporting.flush());
  await until(() => reporting.status().consecutiveFailures >= 3 && events.length >= 10, 'three timeouts and ten consumer events');
  expect(reporting.status().lastError?.message).toBe(`${collector.url()} did not answer within 300 ms`);
  await Promise.all(flushes);
  expect(collector.maxOpen).toBe(1);
  collector.hang = false;
  await until(() => reporting.status().reported >= 1, 'a report once the service answers');
  expect(collector.maxOpen).toBe(1);
});

test('close() stops the reports and the subscriptions; a change not yet reported goes in a last report', async () => {
  const { policy, next, events } = fixture.consumer();
  const reporting = reporter({ bundles: [policy], intervalSeconds: 0.05 });
  await collector.waitFor(() => true);
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  await next('activated');
  await reporting.close();
  const received = collector.received;
  const seen = events.length;
  // The consumer keeps polling (each an event) past several heartbeats: nothing more is sent.
  await until(() => events.length >= seen + 5, 'five consumer events after close');
  expect(collector.received).toBe(received);
  expect(reporting.status().pending).toBe(false);
  expect(bundleIn(collector.reports.at(-1)!)?.active_revision).toBe('v1');
});

test('decision_logs: {} after an upload, decision_log_error with the message and http_code after a failed one', async () => {
  const uploader = createDecisionLogUploader({ url: collector.url('/logs') });
  const reporting = reporter({ decisionLogs: uploader });
  expect(reporting.report().decision_logs).toBeUndefined();
  uploader.log({ decision_id: 'one' });
  await uploader.flush();
  expect(reporting.report().decision_logs).toEqual({});
  // The status collector answers 404 anywhere but /status and /logs.
  const refusing = createDecisionLogUploader({ url: collector.url('/nowhere') });
  refusing.log({ decision_id: 'two' });
  await refusing.flush();
  expect(reporter({ decisionLogs: refusing }).report().decision_logs).toEqual({ code: 'decision_log_error', message: `${collector.url('/nowhere')} answered 404`, http_code: 404 });
  expect(reporting.report().plugins.decision_logs).toEqual({ state: 'OK' });
  await uploader.close();
  await refusing.close();
});

test('decisions are counted by result in metrics.prometheus, in the shape of Prometheus client_model JSON', async () => {
  const { policy, next } = fixture.consumer();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  await next('activated');
  const reporting = reporter({ bundles: [policy] });
  expect(await ownerRead(policy)).toBe(200);
  expect(await ownerRead(policy)).toBe(200);
  await reporting.flush();
  const families = (collector.reports.at(-1)!.body.metrics as { prometheus: Record<string, { metric: { label: { value: string }[]; counter: { value: number } }[] }> }).prometheus;
  const counts = Object.fromEntries(families.svcgate_decisions_total!.metric.map((sample) => [sample.label[0]!.value, sample.counter.value]));
  expect(counts).toEqual({ allow: 2, deny: 0 });
  expect(reporter({ metrics: false }).report().metrics).toBeUndefined();
});

test('labels: the instance id and version, the configured ones beside them', () => {
  const { labels } = reporter({ labels: { region: 'eu-west', cluster: 'c1' } }).report();
  expect(labels).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/), version: expect.any(String), region: 'eu-west', cluster: 'c1' });
});

test('credentials in the service URL, its headers and bundle URLs appear in no report, status or error', async () => {
  const { policy, next } = fixture.consumer({ url: presigned(fixture.server.url('missing.tar.gz')), headers: { authorization: 'Bearer BUNDLE-HEADER-SECRET' } });
  const reporting = reporter({ url: presigned(collector.url()), headers: { authorization: 'Bearer STATUS-HEADER-SECRET' }, bundles: [policy] });
  await next('failed');
  await reporting.flush();
  const refused = collector.reports.at(-1)!;
  expect(refused.headers.authorization).toBe('Bearer STATUS-HEADER-SECRET');
  expect(bundleIn(refused)).toMatchObject({ message: expect.stringMatching(/answered 404/), http_code: 404 });
  expectNoUrlSecret(JSON.stringify(refused.body));
  expect(JSON.stringify(refused.body)).not.toMatch(/HEADER-SECRET/);
  await collector.stop();
  await reporting.flush();
  expect(reporting.status().lastError?.message).toMatch(/cannot be reached/);
  expectNoUrlSecret(JSON.stringify(reporting.status()));
  expect(JSON.stringify(reporting.status())).not.toMatch(/HEADER-SECRET/);
});

describe('bad options are ConfigErrors that name the option and the fix', () => {
  test.each([
    ['no url', { url: undefined }, '$.url'],
    ['a url that is not http', { url: 'ftp://collector/status' }, '$.url'],
    ['a negative interval', { intervalSeconds: -1 }, '$.intervalSeconds'],
    ['an interval too long for a timer', { intervalSeconds: 1e10 }, '$.intervalSeconds'],
    ['a label that is not a string', { labels: { region: 1 } }, '$.labels.region'],
    ['a bundle that is no consumer', { bundles: [{ url: 'http://x/b.tar.gz' }] }, '$.bundles[0]'],
    ['decisionLogs that is no uploader', { decisionLogs: 'http://collector/logs' }, '$.decisionLogs'],
    ['an unknown option', { interval: 5 }, '$'],
  ])('%s', (_name, options, path) => {
    const error = configErrorOf(() => createStatusReporter({ url: collector.url(), ...options } as StatusReporterOptions));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ path, file: '<createStatusReporter options>', fix: 'see createStatusReporter in docs/fleets.md' });
  });

  test('two consumers of the same name', () => {
    const one = fixture.consumer().policy;
    const two = fixture.consumer().policy;
    expect(configErrorOf(() => createStatusReporter({ url: collector.url(), bundles: [one, two] }))).toMatchObject({ path: '$.bundles', problem: expect.stringMatching(/same name/) });
  });
});
