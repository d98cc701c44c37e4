import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { generateKeyPairSync } from 'node:crypto';
import type { BundleConsumer } from '../../src/fleet';
import { createDecisionLogUploader, type DecisionLogUploader } from '../../src/fleet';
import { BundleServer } from '../helpers/bundle-server';
import { exampleBundle } from '../helpers/bundles';
import { registerInMemorySdk, valueAt, type InMemorySdk } from '../helpers/otel-sdk';
import { watchedConsumer } from '../helpers/watched-consumer';

// SPEC 10.3, the fleet's events with the real SDK and on diagnostics_channel: bundle activations
// and refusals from a real bundle server, the age of the last successful check, and decision-log
// events the uploader dropped.

const signingPair = () => {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { signing: { key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'ES256' as const }, public: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const trusted = signingPair();
const attacker = signingPair();

let sdk: InMemorySdk;
let server: BundleServer;
const consumers: BundleConsumer[] = [];
const uploaders: DecisionLogUploader[] = [];
const messages: Record<string, unknown[]> = { 'svcgate:bundle': [], 'svcgate:decision-log-dropped': [] };
const listeners = Object.fromEntries(Object.keys(messages).map((name) => [name, (message: unknown) => messages[name]!.push(message)]));

beforeAll(async () => {
  sdk = registerInMemorySdk();
  for (const [name, listener] of Object.entries(listeners)) subscribe(name, listener);
  server = new BundleServer();
  await server.start();
});
afterAll(async () => {
  for (const consumer of consumers) consumer.close();
  for (const uploader of uploaders) await uploader.close().catch(() => undefined);
  for (const [name, listener] of Object.entries(listeners)) unsubscribe(name, listener);
  await server.dispose();
  await sdk.shutdown();
});

const consumer = (name: string) => watchedConsumer({ name, url: server.url(`${name}.tar.gz`), verification: { key: trusted.public, algorithm: 'ES256' } }, consumers);

test('an activated bundle is counted, and its consumer reports the seconds since its last successful check', async () => {
  server.publish('activates.tar.gz', await exampleBundle({ revision: 'v1', signing: trusted.signing }));
  const watched = consumer('activates');
  await watched.next('activated');

  expect(valueAt(await sdk.points('svcgate.bundle.activations'), { 'svcgate.bundle.name': 'activates', 'svcgate.bundle.source': 'server' })).toBe(1);
  const age = valueAt(await sdk.points('svcgate.bundle.check.age'), { 'svcgate.bundle.name': 'activates' });
  expect(age).toBeGreaterThanOrEqual(0);
  // Polled every 0.05-0.1 s: never near a minute old.
  expect(age).toBeLessThan(60);
  expect(messages['svcgate:bundle']).toContainEqual({ type: 'activated', name: 'activates', revision: 'v1', source: 'server' });
});

test('a refused bundle is counted by its code; the active one stays', async () => {
  server.publish('refuses.tar.gz', await exampleBundle({ revision: 'v1', signing: trusted.signing }));
  const watched = consumer('refuses');
  await watched.next('activated');
  server.publish('refuses.tar.gz', await exampleBundle({ revision: 'forged', signing: attacker.signing }));
  await watched.next('failed');

  const failures = valueAt(await sdk.points('svcgate.bundle.failures'), { 'svcgate.bundle.name': 'refuses', 'svcgate.bundle.failure': 'ERR_SVCGATE_BUNDLE_SIGNATURE' });
  expect(failures).toBeGreaterThanOrEqual(1);
  expect(valueAt(await sdk.points('svcgate.bundle.activations'), { 'svcgate.bundle.name': 'refuses' })).toBe(1);
  expect(messages['svcgate:bundle']).toContainEqual({ type: 'failed', name: 'refuses', revision: 'v1', error: { code: 'ERR_SVCGATE_BUNDLE_SIGNATURE', message: expect.any(String) } });
});

test('decision-log events the uploader drops are counted by reason and published', async () => {
  // Nothing listens on port 1: every upload fails, and the buffer keeps the newest two.
  const uploader = createDecisionLogUploader({ url: 'http://127.0.0.1:1/logs', bufferSizeLimitEvents: 2, minDelaySeconds: 60, maxDelaySeconds: 60 });
  uploaders.push(uploader);
  const before = valueAt(await sdk.points('svcgate.decision_log.dropped'), { 'svcgate.decision_log.drop_reason': 'buffer_full' }) ?? 0;
  for (let i = 0; i < 5; i++) uploader.log({ decision_id: `d${i}` });

  expect(uploader.status().dropped).toBe(3);
  expect(valueAt(await sdk.points('svcgate.decision_log.dropped'), { 'svcgate.decision_log.drop_reason': 'buffer_full' })).toBe(before + 3);
  expect(messages['svcgate:decision-log-dropped']).toEqual([
    { count: 1, reason: 'buffer_full' },
    { count: 1, reason: 'buffer_full' },
    { count: 1, reason: 'buffer_full' },
  ]);
});

test('an event larger than a whole batch is dropped as too_large', async () => {
  const uploader = createDecisionLogUploader({ url: 'http://127.0.0.1:1/logs', maxBatchBytes: 1024, minDelaySeconds: 60, maxDelaySeconds: 60 });
  uploaders.push(uploader);
  // Random bytes in hex: gzip cannot bring 8 KiB of them under 1 KiB.
  uploader.log({ decision_id: 'big', input: { pad: require('node:crypto').randomBytes(8192).toString('hex') } });
  await uploader.flush();
  expect(uploader.status().dropped).toBe(1);
  expect(valueAt(await sdk.points('svcgate.decision_log.dropped'), { 'svcgate.decision_log.drop_reason': 'too_large' })).toBe(1);
  expect(messages['svcgate:decision-log-dropped']).toContainEqual({ count: 1, reason: 'too_large' });
});
