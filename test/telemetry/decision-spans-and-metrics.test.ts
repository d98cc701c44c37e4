import { SpanStatusCode } from '@opentelemetry/api';
import type { Histogram } from '@opentelemetry/sdk-metrics';
import express from 'express';
import request from 'supertest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { bundleConsumer, type BundleConsumer } from '../../src/fleet';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { EXAMPLE_OPENAPI } from '../helpers/bundles';
import { registerInMemorySdk, valueAt, type InMemorySdk } from '../helpers/otel-sdk';
import { HS256, token } from '../helpers/tokens';

// SPEC 10.3 with the real OpenTelemetry SDK registered globally: a svcgate.decide span per
// guarded request's decision and the decision metrics, from bearerJwtAcl and svcAcl (BearerJWT's
// run in oas-telemetry.test.ts, in a host process of its own).

const ACL = { bearerAuth: join(__dirname, '../../examples/users-api/permissions.yaml') };
const OPERATION = 'GET /users/{userId}';
let sdk: InMemorySdk;
const consumers: BundleConsumer[] = [];

beforeAll(() => {
  sdk = registerInMemorySdk();
});
afterAll(async () => {
  for (const consumer of consumers) consumer.close();
  await sdk.shutdown();
});
beforeEach(() => sdk.resetSpans());

function guardedApp(options: Record<string, unknown> = { acl: ACL }) {
  const app = express();
  app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt({ ...HS256, audience: false }), ...options }));
  app.use((_req, res) => res.json({ ok: true }));
  return app;
}

const bearer = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;
const attributesOf = (index = 0) => sdk.spans('svcgate.decide')[index]?.attributes;

test("spans and metrics carry svcgate's name and package version as their instrumentation scope", async () => {
  const { version } = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string };
  expect((await request(guardedApp()).get('/api/v1/users/1').set('Authorization', await bearer({ role: 'user', userId: 1 }))).status).toBe(200);
  expect(sdk.spans('svcgate.decide')[0]!.instrumentationScope).toEqual({ name: 'svcgate', version });
  expect(await sdk.metricScopes()).toContainEqual(expect.objectContaining({ name: 'svcgate', version }));
});

test('an allowed request: one svcgate.decide span with the operation, result, role, possession, revisions and cache hit', async () => {
  const app = guardedApp();
  const auth = await bearer({ role: 'user', userId: 1 });
  expect((await request(app).get('/api/v1/users/1').set('Authorization', auth)).status).toBe(200);
  expect((await request(app).get('/api/v1/users/1').set('Authorization', auth)).status).toBe(200);

  const spans = sdk.spans('svcgate.decide');
  expect(spans).toHaveLength(2);
  expect(spans[0]!.attributes).toEqual({
    'svcgate.operation': OPERATION,
    'svcgate.result': 'allow',
    'svcgate.allow': true,
    'svcgate.role': 'user',
    'svcgate.possession': 'own',
    'svcgate.cache.hit': false,
    'svcgate.policy.revision': expect.stringMatching(/^[0-9a-f]{16}$/),
    'svcgate.data.revision': expect.any(String),
  });
  // The same input again is answered from the decision cache.
  expect(spans[1]!.attributes['svcgate.cache.hit']).toBe(true);
  expect(spans[0]!.status.code).toBe(SpanStatusCode.UNSET);
});

test('a deny is no fault: the span says allow false, and its status stays unset', async () => {
  const app = guardedApp();
  expect((await request(app).get('/api/v1/users/2').set('Authorization', await bearer({ role: 'user', userId: 1 }))).status).toBe(403);
  expect(attributesOf()).toMatchObject({ 'svcgate.result': 'deny', 'svcgate.allow': false, 'svcgate.operation': OPERATION });
  expect(sdk.spans('svcgate.decide')[0]!.status.code).toBe(SpanStatusCode.UNSET);
});

test('a token that fails verification: a span with its code, counted by code', async () => {
  const app = guardedApp();
  const expired = await bearer({ role: 'user', userId: 1, exp: Math.floor(Date.now() / 1000) - 3600 });
  const before = valueAt(await sdk.points('svcgate.verification.failures'), { 'svcgate.verification.failure': 'ERR_JWT_EXPIRED' }) ?? 0;
  expect((await request(app).get('/api/v1/users/1').set('Authorization', expired)).status).toBe(401);
  expect(attributesOf()).toMatchObject({ 'svcgate.operation': OPERATION, 'svcgate.result': 'unauthenticated', 'svcgate.allow': false, 'svcgate.verification.failure': 'ERR_JWT_EXPIRED' });
  expect(valueAt(await sdk.points('svcgate.verification.failures'), { 'svcgate.operation': OPERATION, 'svcgate.verification.failure': 'ERR_JWT_EXPIRED' })).toBe(before + 1);
});

test('nothing could decide (no bundle yet): the span status is error, with the reason', async () => {
  // Nothing listens on port 1 of 127.0.0.1: the consumer never activates a bundle.
  const consumer = bundleConsumer({ url: 'http://127.0.0.1:1/bundle.tar.gz', polling: { minDelaySeconds: 60, maxDelaySeconds: 60 } });
  consumers.push(consumer);
  const app = guardedApp({ policy: { bearerAuth: consumer } });
  expect((await request(app).get('/api/v1/users/1').set('Authorization', await bearer({ role: 'user', userId: 1 }))).status).toBe(503);
  const [span] = sdk.spans('svcgate.decide');
  expect(span!.attributes).toMatchObject({ 'svcgate.result': 'unavailable', 'svcgate.allow': false });
  expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'no policy bundle has been activated yet' });
});

test('metrics: decisions by result and operation, and their duration in seconds', async () => {
  const app = guardedApp();
  const decisions = async () => sdk.points('svcgate.decisions');
  const before = await decisions();
  const count = (points: typeof before, result: string) => valueAt(points, { 'svcgate.operation': OPERATION, 'svcgate.result': result }) ?? 0;
  const owner = await bearer({ role: 'user', userId: 7 });
  for (let i = 0; i < 3; i++) await request(app).get('/api/v1/users/7').set('Authorization', owner).expect(200);
  await request(app).get('/api/v1/users/8').set('Authorization', owner).expect(403);

  const after = await decisions();
  expect(count(after, 'allow') - count(before, 'allow')).toBe(3);
  expect(count(after, 'deny') - count(before, 'deny')).toBe(1);
  const metric = (await sdk.collect()).find((candidate) => candidate.descriptor.name === 'svcgate.decision.duration')!;
  expect(metric.descriptor.unit).toBe('s');
  const allowed = metric.dataPoints.find((point) => point.attributes['svcgate.result'] === 'allow' && point.attributes['svcgate.operation'] === OPERATION)!.value as Histogram;
  expect(allowed.count).toBeGreaterThanOrEqual(3);
  // Seconds: a decision in process takes well under one.
  expect(allowed.max).toBeLessThan(1);
  // Bounded attributes: operation ids and results, never the requested path.
  for (const point of after) expect(Object.keys(point.attributes).sort()).toEqual(['svcgate.operation', 'svcgate.result']);
});

class AccountService {
  static schemas = { getAccount: z.object({ accountId: z.string() }) };
  getAccount({ accountId }: { accountId: string }) {
    return { accountId };
  }
}

test('svcAcl records the same span (it shares the guard)', async () => {
  const acl = { customer: { '/api/account-service/get-account': { 'read:own': ['*'] } } };
  const guard = svcAcl({ handler: bearerJwt({ ...HS256, audience: false }), acl, owners: { 'accountService.getAccount': { accountId: 'accounts' } } });
  const app = new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(AccountService)).app;
  await request(app).get('/api/account-service/get-account?accountId=a1').set('Authorization', await bearer({ role: 'customer', accounts: ['a1'] })).expect(200);
  expect(attributesOf()).toMatchObject({ 'svcgate.operation': 'GET /api/account-service/get-account', 'svcgate.result': 'allow', 'svcgate.role': 'customer', 'svcgate.possession': 'own' });
});

test("another verifier's codes: ERR_ codes are kept, anything else (a word of the token, lower case, too long) is reported as ERR_SVCGATE_INVALID_TOKEN", async () => {
  // A handler of the app's own, as bearerJwtAcl takes one: what it throws is the caller's to shape.
  const refusing = (code: string) => Object.assign(async () => Promise.reject(Object.assign(new Error('refused'), { code })), { challenges: ['Bearer'] });
  const seen: unknown[] = [];
  for (const code of ['ERR_CUSTOM_EXPIRED', 'ALICE', 'token-abc.def', `ERR_${'X'.repeat(80)}`]) {
    sdk.resetSpans();
    const app = guardedApp({ acl: ACL, handler: refusing(code) });
    expect((await request(app).get('/api/v1/users/1').set('Authorization', 'Bearer x.y.z')).status).toBe(401);
    seen.push(attributesOf()?.['svcgate.verification.failure']);
  }
  expect(seen).toEqual(['ERR_CUSTOM_EXPIRED', 'ERR_SVCGATE_INVALID_TOKEN', 'ERR_SVCGATE_INVALID_TOKEN', 'ERR_SVCGATE_INVALID_TOKEN']);
});
