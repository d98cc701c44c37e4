import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type DecisionLogEvent } from '../../src/auth';
import { createDecisionLogUploader, type DecisionLogUploader } from '../../src/fleet';
import { ConfigError } from '../../src/policy';
import { EXAMPLE_OPENAPI, exampleBundle, examplePermissions } from '../helpers/bundles';
import { LogCollector } from '../helpers/log-collector';
import { opaDecision, startOpa } from '../helpers/opa-server';
import { HS256, token } from '../helpers/tokens';

let collector: LogCollector;
const uploaders: DecisionLogUploader[] = [];

beforeEach(async () => {
  collector = new LogCollector();
  await collector.start();
});

afterEach(async () => {
  collector.hang = false;
  for (const uploader of uploaders.splice(0)) await uploader.close().catch(() => undefined);
  await collector.stop();
});

function uploader(options: Partial<Parameters<typeof createDecisionLogUploader>[0]> = {}): DecisionLogUploader {
  const created = createDecisionLogUploader({ url: collector.url, minDelaySeconds: 0.05, maxDelaySeconds: 0.1, ...options });
  uploaders.push(created);
  return created;
}

function guardedApp(decisionLog: (event: DecisionLogEvent) => void): express.Express {
  const app = express();
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: examplePermissions() }, decisionLog }));
  app.use((_req, res) => res.json({ ok: true }));
  return app;
}

/** Events as the adapters log them, without an app: `n` of them, each about `size` bytes of input. */
function events(n: number, size = 10): object[] {
  return Array.from({ length: n }, (_, i) => ({ decision_id: `d${i}`, path: 'svcgate/authz/decision', input: { operation: 'GET /x', pad: 'x'.repeat(size) }, result: { allow: true } }));
}

describe('createDecisionLogUploader', () => {
  test("an adapter's decisions reach the collector in OPA's format, masked before they leave the process", async () => {
    const logs = uploader({ mask: ['/input/claims', '/input/params/path:userId', { op: 'upsert', path: '/input/role', value: '***' }], labels: { app: 'users' } });
    const app = guardedApp(logs.log);
    const jwt = await token({ role: 'user', userId: 3 });
    expect((await request(app).get('/api/v1/users/3').set('Authorization', `Bearer ${jwt}`)).status).toBe(200);
    expect((await request(app).get('/api/v1/users/4').set('Authorization', `Bearer ${jwt}`)).status).toBe(403);
    await collector.waitFor(2);
    const [allowed, denied] = collector.events;
    expect(allowed).toMatchObject({
      path: 'svcgate/authz/decision',
      input: { operation: 'GET /users/{userId}', role: '***', params: {} },
      result: { allow: true, role: 'user', possession: 'own' },
      labels: { app: 'users', id: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      erased: ['/input/claims', '/input/params/path:userId'],
      masked: ['/input/role'],
    });
    expect(allowed!.input).not.toHaveProperty('claims');
    expect(denied).toMatchObject({ result: { allow: false, reasons: ['read:own needs ownership of path parameter userId'] } });
    expect(JSON.stringify(collector.batches)).not.toContain(jwt);
    // The collector has the batch before the uploader has read its answer: wait for that upload.
    await logs.flush();
    expect(logs.status()).toMatchObject({ buffered: 0, dropped: 0, uploaded: 2, lastError: null });
  });

  test('uploads are gzip batches of at most maxBatchBytes; an event larger than a batch is dropped and counted', async () => {
    const logs = uploader({ maxBatchBytes: 2048, minDelaySeconds: 60, maxDelaySeconds: 60 });
    for (const event of events(300, 200)) logs.log(event);
    logs.log({ decision_id: 'huge', input: { pad: Array.from({ length: 5000 }, (_, i) => `${i * 7919}`).join('-') } });
    await logs.flush();
    expect(collector.events).toHaveLength(300);
    expect(collector.batches.length).toBeGreaterThan(1);
    expect(Math.max(...collector.batches.map((batch) => batch.bytes))).toBeLessThanOrEqual(2048);
    expect(logs.status()).toMatchObject({ uploaded: 300, dropped: 1, buffered: 0 });
  });

  test('collector down, then up: buffered events arrive, the oldest beyond the bound are dropped and counted', async () => {
    await collector.stop();
    const logs = uploader({ bufferSizeLimitEvents: 5, maxBackoffSeconds: 0.2 });
    for (const event of events(8)) logs.log(event);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(logs.status()).toMatchObject({ buffered: 5, dropped: 3, uploaded: 0 });
    expect(logs.status().lastError?.message).toMatch(/cannot be reached \(ECONNREFUSED\)/);
    expect(logs.status().consecutiveFailures).toBeGreaterThan(0);
    await collector.start();
    await collector.waitFor(5);
    expect(collector.events.map((event) => event.decision_id)).toEqual(['d3', 'd4', 'd5', 'd6', 'd7']);
    // As above: the collector has the batch before the uploader has read its answer.
    await logs.flush();
    expect(logs.status()).toMatchObject({ buffered: 0, dropped: 3, uploaded: 5, consecutiveFailures: 0 });
  });

  test('collector down with a full buffer: each further event drops the oldest without copying the buffer (400,000 events into 200,000)', async () => {
    // Copying the buffer for each dropped event took 1.5 ms a request at 100,000 events: these
    // 200,000 drops took minutes, and the test times out (it yields between rounds so that the
    // timeout can fire); one drop is a step now, the whole test well under a second.
    await collector.stop();
    const logs = uploader({ bufferSizeLimitEvents: 200_000, minDelaySeconds: 3600, maxDelaySeconds: 3600 });
    const event = events(1)[0]!;
    for (let round = 0; round < 200; round++) {
      for (let i = 0; i < 2_000; i++) logs.log(event);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(logs.status()).toMatchObject({ buffered: 200_000, dropped: 200_000, uploaded: 0 });
  }, 20_000);

  test('close() flushes what is buffered, and a collector that never answers holds it no longer than timeoutMs', async () => {
    const logs = uploader({ minDelaySeconds: 60, maxDelaySeconds: 60 });
    for (const event of events(3)) logs.log(event);
    await logs.close();
    expect(collector.events).toHaveLength(3);

    collector.hang = true;
    const stuck = uploader({ minDelaySeconds: 60, maxDelaySeconds: 60, timeoutMs: 200 });
    stuck.log(events(1)[0]!);
    await stuck.close();
    expect(stuck.status()).toMatchObject({ buffered: 1, uploaded: 0, lastError: { message: expect.stringMatching(/did not answer within 200 ms/) } });
  });

  test('bad options are start-up errors', () => {
    expect(() => createDecisionLogUploader({ url: 'file:///tmp/x' })).toThrow(ConfigError);
    expect(() => createDecisionLogUploader({ url: collector.url, mask: ['input/claims'] })).toThrow(/JSON pointer/);
    expect(() => createDecisionLogUploader({ url: collector.url, mask: ['/token'] })).toThrow(/inside \/input or \/result/);
    expect(() => createDecisionLogUploader({ url: collector.url, mask: ['/input/__proto__/x'] })).toThrow(/__proto__/);
    expect(() => createDecisionLogUploader({ url: collector.url, minDelaySeconds: 9, maxDelaySeconds: 1 })).toThrow(/minDelaySeconds/);
  });

  test("svcgate's events have the fields, and their types, of the events the real OPA uploads", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-opa-logs-'));
    const file = join(dir, 'bundle.tar.gz');
    writeFileSync(file, await exampleBundle({ revision: 'logged' }));
    const origin = new URL(collector.url).origin;
    const opa = await startOpa(['--bundle', file, '--set', `services.collector.url=${origin}`, '--set', 'decision_logs.service=collector', '--set', 'decision_logs.reporting.min_delay_seconds=1', '--set', 'decision_logs.reporting.max_delay_seconds=1']);
    try {
      await opaDecision(opa.url, { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['1'] }, claims: { 'path:userId': ['1'] } });
      await collector.waitFor(1, 15_000);
    } finally {
      await opa.stop();
      rmSync(dir, { recursive: true, force: true });
    }
    const fromOpa = collector.events[0]!;
    const ours: DecisionLogEvent[] = [];
    const app = guardedApp((event) => ours.push(event));
    await request(app).get('/api/v1/users/1').set('Authorization', `Bearer ${await token({ role: 'user', userId: 1 })}`);
    const shape = (event: object) => Object.fromEntries(Object.entries(event).map(([key, value]) => [key, Array.isArray(value) ? 'array' : typeof value]));
    const common = ['decision_id', 'path', 'input', 'result', 'timestamp', 'metrics', 'labels'];
    expect(Object.keys(fromOpa)).toEqual(expect.arrayContaining(common));
    expect(Object.fromEntries(common.map((key) => [key, shape(ours[0]!)[key]]))).toEqual(Object.fromEntries(common.map((key) => [key, shape(fromOpa)[key]])));
    expect(fromOpa.path).toBe(ours[0]!.path);
    expect(fromOpa.result).toEqual(ours[0]!.result);
    expect(Object.keys(ours[0]!.labels)).toEqual(expect.arrayContaining(Object.keys(fromOpa.labels as object).filter((key) => key === 'id' || key === 'version')));
    expect(Date.parse(ours[0]!.timestamp)).not.toBeNaN();
  });
});
