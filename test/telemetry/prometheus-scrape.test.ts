import type { RequestListener } from 'node:http';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import express from 'express';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// SPEC 10.3: svcgate's metrics as Prometheus scrapes them, from @opentelemetry/exporter-prometheus
// served on 127.0.0.1, after real requests to a guarded Express app.

const ACL = { bearerAuth: join(__dirname, '../../examples/users-api/permissions.yaml') };
let exporter: PrometheusExporter;
let provider: MeterProvider;
const closers: (() => Promise<void>)[] = [];

beforeAll(() => {
  // The exporter's own request handler, on a server of the test's, so that the port is a free one.
  exporter = new PrometheusExporter({ preventServerStart: true });
  provider = new MeterProvider({ readers: [exporter] });
  metrics.setGlobalMeterProvider(provider);
});
afterAll(async () => {
  for (const close of closers) await close();
  await provider.shutdown();
  metrics.disable();
});

async function served(app: RequestListener): Promise<string> {
  const { url, close } = await listen(app);
  closers.push(close);
  return url;
}

test('a scrape shows the decisions, their duration histogram and the verification failures', async () => {
  const app = express();
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt({ ...HS256, audience: false }), acl: ACL }));
  app.use((_req, res) => res.json({ ok: true }));
  const api = await served(app as unknown as RequestListener);
  const scrape = await served((req, res) => exporter.getMetricsRequestHandler(req, res));

  const owner = { Authorization: `Bearer ${await token({ role: 'user', userId: 1 })}` };
  expect((await fetch(`${api}/api/v1/users/1`, { headers: owner })).status).toBe(200);
  expect((await fetch(`${api}/api/v1/users/1`, { headers: owner })).status).toBe(200);
  expect((await fetch(`${api}/api/v1/users/2`, { headers: owner })).status).toBe(403);
  expect((await fetch(`${api}/api/v1/users/1`, { headers: { Authorization: 'Bearer not-a-jwt' } })).status).toBe(401);

  const answer = await fetch(`${scrape}/metrics`);
  expect(answer.status).toBe(200);
  const samples = parseScrape(await answer.text());
  const value = (name: string, labels: Record<string, string>) => samples.find((sample) => sample.name === name && Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted))?.value;
  const operation = { svcgate_operation: 'GET /users/{userId}' };
  expect(value('svcgate_decisions_total', { ...operation, svcgate_result: 'allow' })).toBe(2);
  expect(value('svcgate_decisions_total', { ...operation, svcgate_result: 'deny' })).toBe(1);
  expect(value('svcgate_decisions_total', { ...operation, svcgate_result: 'unauthenticated' })).toBe(1);
  expect(value('svcgate_decision_duration_count', { ...operation, svcgate_result: 'allow' })).toBe(2);
  // Buckets in seconds, from 10 microseconds up: every decision is within the last.
  expect(value('svcgate_decision_duration_bucket', { ...operation, svcgate_result: 'allow', le: '0.00001' })).toBeDefined();
  expect(value('svcgate_decision_duration_bucket', { ...operation, svcgate_result: 'allow', le: '5' })).toBe(2);
  expect(value('svcgate_verification_failures_total', { ...operation, svcgate_verification_failure: 'ERR_JWS_INVALID' })).toBe(1);
});

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (comments left out). */
function parseScrape(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map(([, key, value]) => [key!, value!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}
