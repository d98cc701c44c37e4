import type { DecisionLogEvent } from '../../src/auth';
import { examplePermissions } from '../helpers/bundles';
import { consumerFixture, withoutUserRead } from '../helpers/consumer-fixture';
import { send, shadowApp, shadowSettled, type Call, type ShadowApp } from './shadow-apps';

// Which requests the candidate decides: sampleRate, maxPerSecond, and never a request refused
// before a decision.

const fixture = consumerFixture();
const opened: ShadowApp[] = [];
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
});

const owner: Call = { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } };
const revoking = () => examplePermissions(withoutUserRead);

async function sampled(shadow: Record<string, unknown>, events: DecisionLogEvent[] = []): Promise<ShadowApp> {
  const app = await shadowApp({ acl: { bearerAuth: examplePermissions() }, decisionLog: (event) => events.push(event), shadow: { source: revoking(), ...shadow } });
  opened.push(app);
  return app;
}

test('sampleRate 0: nothing is decided by the candidate, no divergence is logged', async () => {
  const events: DecisionLogEvent[] = [];
  const app = await sampled({ sampleRate: 0 }, events);
  for (let i = 0; i < 20; i++) expect((await send(app.url, owner)).status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(app.guard.shadowStatus()).toMatchObject({ sampleRate: 0, compared: 0, divergences: 0, errors: 0, examples: [] });
  expect(events).toHaveLength(20);
  expect(events.filter((event) => event.shadow !== undefined)).toEqual([]);
});

test('sampleRate 0.5: about half of 400 requests are compared, the rest counted as left out by sampling', async () => {
  const app = await sampled({ sampleRate: 0.5 });
  const total = 400;
  for (let i = 0; i < total; i++) await send(app.url, owner);
  const status = await shadowSettled(app.guard, (counted) => counted.compared + counted.skipped.sampling === total);
  // Binomial(400, 0.5): 20% to 80% is more than 12 standard deviations either way.
  expect(status.compared).toBeGreaterThan(0.2 * total);
  expect(status.compared).toBeLessThan(0.8 * total);
  expect(status.divergences).toBe(status.compared);
});

test('maxPerSecond: past it in a second, sampled requests are counted as skipped by rate', async () => {
  const app = await sampled({ maxPerSecond: 1 });
  const total = 30;
  const started = performance.now();
  for (let i = 0; i < total; i++) await send(app.url, owner);
  const seconds = Math.ceil((performance.now() - started) / 1000) + 1;
  const status = await shadowSettled(app.guard, (counted) => counted.compared + counted.skipped.rate === total);
  // At most one a second, in each second the requests took.
  expect(status.compared).toBeLessThanOrEqual(seconds);
  expect(status.skipped.rate).toBeGreaterThanOrEqual(total - seconds);
  expect(status.maxPerSecond).toBe(1);
});

test('undecided requests are skipped: a 400 refusal and a 503 of an active source that cannot decide; a 401 never reaches the shadow', async () => {
  const app = await sampled({});
  expect((await send(app.url, { method: 'GET', path: '/users/abc', claims: { role: 'user', userId: 1 } })).status).toBe(400);
  expect((await send(app.url, { method: 'GET', path: '/users/1', claims: 'Bearer not-a-token' })).status).toBe(401);
  const expired = { role: 'user', userId: 1, exp: Math.floor(Date.now() / 1000) - 3600 };
  expect((await send(app.url, { method: 'GET', path: '/users/1', claims: expired })).status).toBe(401);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(app.guard.shadowStatus()).toMatchObject({ compared: 0, errors: 0, skipped: { undecided: 1, sampling: 0, rate: 0, busy: 0 } });

  // An active bundleConsumer with no bundle served yet answers 503 (unavailable).
  const waiting = fixture.consumer();
  const unready = await shadowApp({ policy: { bearerAuth: waiting.policy }, shadow: { source: revoking() } });
  opened.push(unready);
  const answer = await send(unready.url, owner);
  expect(answer.status).toBe(503);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(unready.guard.shadowStatus()).toMatchObject({ compared: 0, skipped: { undecided: 1 } });
});
