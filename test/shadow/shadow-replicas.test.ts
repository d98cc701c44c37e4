import { createDecisionLogUploader, type DecisionLogUploader } from '../../src/fleet';
import type { ShadowStatus } from '../../src/auth';
import { exampleBundle } from '../helpers/bundles';
import { consumerFixture, withoutUserRead } from '../helpers/consumer-fixture';
import { LogCollector } from '../helpers/log-collector';
import { registerInMemorySdk, valueAt, type InMemorySdk } from '../helpers/otel-sdk';
import { decided, send, shadowApp, shadowSettled, type Answer, type Call, type ShadowApp } from './shadow-apps';

// SPEC 12.1 with two replicas: each takes the active bundle (v1) and, as its shadow, a candidate
// bundle (v2) that takes read:own on users away from the user role. Every answer must be the one a
// third replica without shadow gives; the divergences show in the uploaded decision log, the
// metric and each replica's shadowStatus().

const fixture = consumerFixture();
const collector = new LogCollector();
let sdk: InMemorySdk;
const opened: ShadowApp[] = [];
const uploaders: DecisionLogUploader[] = [];

beforeAll(async () => {
  sdk = registerInMemorySdk();
  await collector.start();
});
afterAll(async () => {
  await collector.stop();
  await sdk.shutdown();
});
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
  for (const uploader of uploaders.splice(0)) await uploader.close();
});

const user1 = { role: 'user', userId: 1 };
const userMany = { role: 'user', userId: [1, 3] };
const admin = { role: 'admin' };
const holder = { role: 'user', accounts: ['acc-1'] };

/** Allowed, denied, owned and not owned, several roles, refusals before a decision; the two owner reads diverge. */
const SEQUENCE: Call[] = [
  { method: 'GET', path: '/users/1', claims: user1 },
  { method: 'GET', path: '/users/2', claims: user1 },
  { method: 'GET', path: '/users/3', claims: userMany },
  { method: 'PUT', path: '/users/1', claims: user1 },
  { method: 'GET', path: '/users/2', claims: admin },
  { method: 'GET', path: '/users', claims: admin },
  { method: 'GET', path: '/users', claims: user1 },
  { method: 'DELETE', path: '/users/2', claims: admin },
  { method: 'GET', path: '/accounts/acc-1', claims: holder },
  { method: 'GET', path: '/accounts/acc-2', claims: holder },
  { method: 'GET', path: '/transfers?accountId=acc-1', claims: holder },
  { method: 'GET', path: '/users/3/reports/2026-11', claims: admin },
  { method: 'GET', path: '/users/1', claims: {} },
  { method: 'GET', path: '/users/1' },
  { method: 'GET', path: '/users/1', claims: 'Bearer not-a-token' },
  { method: 'GET', path: '/users/abc', claims: user1 },
];
/** Requests of SEQUENCE the candidate decides otherwise (the owner reads: narrowed). */
const DIVERGING = 2;
/**
 * Requests refused before a decision: a token that does not verify (401, never shown to the
 * shadow) and a parameter that is not an integer (400, skipped as undecided). A request without a
 * token is decided (the anonymous role is denied: 401 with the challenge), so it is compared.
 */
const UNAUTHENTICATED = 1;
const BAD_REQUESTS = 1;
const DECIDED = SEQUENCE.length - UNAUTHENTICATED - BAD_REQUESTS;

async function replica(shadow: boolean): Promise<ShadowApp> {
  const uploader = createDecisionLogUploader({ url: collector.url, minDelaySeconds: 3600, maxDelaySeconds: 3600 });
  uploaders.push(uploader);
  const active = fixture.consumer().policy;
  const candidate = fixture.consumer({ url: fixture.server.url('candidate.tar.gz') }).policy;
  await Promise.all([active.ready(), candidate.ready()]);
  const app = await shadowApp({ policy: { bearerAuth: active }, decisionLog: uploader.log, ...(shadow ? { shadow: { source: { bearerAuth: candidate } } } : {}) });
  opened.push(app);
  return app;
}

test('two replicas with a candidate that revokes a permission: the same answers as without shadow, and the divergences in the log, the metric and the status', async () => {
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  fixture.server.publish('candidate.tar.gz', await exampleBundle({ revision: 'v2', edit: withoutUserRead }));
  const replicas = [await replica(true), await replica(true)];
  const plain = await replica(false);
  expect(plain.guard.shadowStatus()).toBeNull();
  expect(plain.guard.status()).toEqual({ shadow: null });

  // Twice, alternating, so that each replica answers each request of the sequence once.
  const seen: { call: Call; shadowed: Answer; plain: Answer }[] = [];
  for (let round = 0; round < 2; round++) {
    for (const [index, call] of SEQUENCE.entries()) {
      const target = replicas[(index + round) % 2]!;
      seen.push({ call, shadowed: await send(target.url, call), plain: await send(plain.url, call) });
    }
  }
  for (const { call, shadowed, plain: expected } of seen) expect({ call, answer: shadowed }).toEqual({ call, answer: expected });
  // The sequence does what it says: owner reads allowed by the active revision, refusals of each kind.
  expect(seen.slice(0, SEQUENCE.length).map(({ plain: answer }) => answer.status)).toEqual([200, 403, 200, 200, 200, 200, 403, 200, 200, 403, 200, 200, 403, 401, 401, 400]);

  const statuses = await Promise.all(replicas.map((app) => shadowSettled(app.guard, (status) => decided(status) === DECIDED)));
  const sum = (pick: (status: ShadowStatus) => number) => statuses.reduce((total, status) => total + pick(status), 0);
  expect(sum((status) => status.compared)).toBe(2 * DECIDED);
  expect(sum((status) => status.divergences)).toBe(2 * DIVERGING);
  expect(sum((status) => status.changes.narrowed)).toBe(2 * DIVERGING);
  expect(sum((status) => status.changes.widened + status.changes.changed)).toBe(0);
  expect(sum((status) => status.errors + status.unavailable)).toBe(0);
  expect(sum((status) => status.skipped.undecided)).toBe(2 * BAD_REQUESTS);
  expect(sum((status) => status.skipped.sampling + status.skipped.rate + status.skipped.busy)).toBe(0);
  expect(sum((status) => status.byOperation['GET /users/{userId}']!.narrowed)).toBe(2 * DIVERGING);
  expect(sum((status) => status.byRole.user!.divergences)).toBe(2 * DIVERGING);
  expect(sum((status) => status.byRole.admin!.divergences)).toBe(0);
  // A token without a role claim, and no token at all.
  expect(sum((status) => status.byRole.anonymous!.compared)).toBe(4);
  for (const status of statuses) {
    // Both replicas took the same two bundles; the candidate's data is not the active one's.
    expect(status).toMatchObject({ sampleRate: 1, maxPerSecond: null, active: statuses[0]!.active, candidate: statuses[0]!.candidate });
    expect(status.candidate.data_revision).not.toBe(status.active.data_revision);
    expect(status.examples).toHaveLength(DIVERGING);
    for (const example of status.examples) {
      expect(example).toMatchObject({ operation: 'GET /users/{userId}', role: 'user', change: 'narrowed', active: { allow: true }, shadow: { allow: false, attributes: [] } });
      // No claims nor parameter values in the status: the full event is found by its id.
      expect(Object.keys(example).sort()).toEqual(["active", "change", "decision_id", "operation", "role", "shadow", "timestamp"]);
    }
  }

  for (const uploader of uploaders) await uploader.flush();
  const events = collector.events;
  const divergences = events.filter((event) => event.shadow !== undefined);
  // Every request the guards saw is logged once (the sequence twice by the pair, twice by the plain replica); the divergences come on top.
  expect(events.length - divergences.length).toBe(2 * 2 * SEQUENCE.length);
  expect(divergences).toHaveLength(2 * DIVERGING);
  for (const event of divergences) {
    expect(event).toMatchObject({
      path: 'svcgate/authz/decision',
      operation: 'GET /users/{userId}',
      data_revision: statuses[0]!.active.data_revision,
      bundles: { svcgate: { revision: 'v1' } },
      input: { role: 'user' },
      result: { allow: true },
      shadow: { change: 'narrowed', ...statuses[0]!.candidate, result: { allow: false } },
    });
  }
  const ids = new Set(divergences.map((event) => event.decision_id));
  for (const status of statuses) for (const example of status.examples) expect(ids.has(example.decision_id)).toBe(true);

  const points = await sdk.points('svcgate.shadow.comparisons');
  const at = (operation: string, outcome: string) => valueAt(points, { 'svcgate.operation': operation, 'svcgate.shadow.outcome': outcome }) ?? 0;
  expect(at('GET /users/{userId}', 'narrowed')).toBe(2 * DIVERGING);
  const same = points.filter((point) => point.attributes['svcgate.shadow.outcome'] === 'same').reduce((total, point) => total + point.value, 0);
  expect(same).toBe(2 * (DECIDED - DIVERGING));
  expect(points.every((point) => ['same', 'narrowed'].includes(String(point.attributes['svcgate.shadow.outcome'])))).toBe(true);
});
