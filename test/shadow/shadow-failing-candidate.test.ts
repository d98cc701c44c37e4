import { createServer, type Server, type Socket } from 'node:net';
import type { Decision, PolicyInput, PolicySource } from '../../src/policy';
import { remoteOpa } from '../../src/fleet';
import { MAX_PENDING } from '../../src/guard/shadow/shadow-runner';
import { examplePermissions } from '../helpers/bundles';
import { decidedAtLeast, send, shadowApp, shadowSettled, type Call, type ShadowApp } from './shadow-apps';

// SPEC 12.1: "a failing or slow candidate never affects the answer". Candidates that never
// decide, throw, reject or answer something else: every answer is the one of an app without
// shadow, each is counted, nothing goes unhandled, and nothing keeps the process alive.

const opened: ShadowApp[] = [];
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
let plain: ShadowApp;

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled);
  plain = await shadowApp({ acl: { bearerAuth: examplePermissions() } });
});
afterAll(async () => {
  await plain.close();
  process.off('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
  expect(unhandled).toEqual([]);
});

/** A candidate of the app's own whose evaluate does what `evaluate` does. */
function customCandidate(evaluate: (input: PolicyInput) => unknown): PolicySource {
  return { connect: () => ({ evaluate: evaluate as (input: PolicyInput) => Decision, revision: 'custom-data', policyRevision: 'custom-policy' }) };
}

async function shadowed(source: unknown, settings: Record<string, unknown> = {}): Promise<ShadowApp> {
  const app = await shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source, ...settings } });
  opened.push(app);
  return app;
}

const CALLS: Call[] = [
  { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } },
  { method: 'GET', path: '/users/2', claims: { role: 'user', userId: 1 } },
  { method: 'GET', path: '/users', claims: { role: 'admin' } },
  { method: 'GET', path: '/users' },
];

/** Sends CALLS to `app` and to the app without shadow: the same answers, request by request. */
async function expectSameAnswers(app: ShadowApp): Promise<void> {
  for (const call of CALLS) expect({ call, answer: await send(app.url, call) }).toEqual({ call, answer: await send(plain.url, call) });
}

const refTimers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

describe.each([
  ['throws', () => customCandidate(() => {
    throw new Error('candidate bug');
  }), /candidate bug/],
  ['rejects', () => customCandidate(() => Promise.reject(new Error('candidate down'))), /candidate down/],
  // String() of a value without a prototype throws: the count must not.
  ['throws a value that cannot be made a string', () => customCandidate(() => {
    throw Object.create(null);
  }), /cannot be shown/],
  ['rejects with a value that cannot be made a string', () => customCandidate(() => Promise.reject(Object.create(null))), /cannot be shown/],
  // A message of a megabyte (a whole answer quoted) is kept cut short.
  ['throws a message of a megabyte', () => customCandidate(() => {
    throw new Error(`answer: ${'x'.repeat(1_000_000)}`);
  }), /^answer: x{492}…$/],
  ['answers null', () => customCandidate(() => null), /not a decision/],
  ['answers a decision of another shape', () => customCandidate(() => ({ allow: 'yes', attributes: '*' })), /not a decision/],
  ['resolves to a number', () => customCandidate(() => Promise.resolve(42)), /not a decision/],
  ['never settles', () => customCandidate(() => new Promise(() => undefined)), /did not decide within 50 ms/],
])('a candidate that %s', (_name, candidate, message) => {
  test('changes no answer and counts each sampled request as an error', async () => {
    const app = await shadowed(candidate(), { timeoutMs: 50 });
    await expectSameAnswers(app);
    const status = await shadowSettled(app.guard, decidedAtLeast(CALLS.length));
    expect(status).toMatchObject({ compared: 0, divergences: 0, unavailable: 0, errors: CALLS.length, examples: [] });
    expect(status.lastError!.message).toMatch(message);
  });
});

test(`a candidate that never settles holds at most ${MAX_PENDING} decisions: the rest are skipped as busy, with no timer that keeps the process alive`, async () => {
  let asked = 0;
  const app = await shadowed(
    customCandidate(() => {
      asked += 1;
      return new Promise(() => undefined);
    }),
    { timeoutMs: 600_000 },
  );
  const timersBefore = refTimers();
  const total = MAX_PENDING + 36;
  const admin = { method: 'GET', path: '/users', claims: { role: 'admin' } };
  for (let i = 0; i < total; i++) expect((await send(app.url, admin)).status).toBe(200);
  const status = await shadowSettled(app.guard, (counted) => counted.skipped.busy >= total - MAX_PENDING);
  expect(status).toMatchObject({ compared: 0, errors: 0, skipped: { busy: total - MAX_PENDING } });
  expect(asked).toBe(MAX_PENDING);
  // The pending decisions' timeouts are unref'd: a process with nothing else to do exits. (HTTP
  // keep-alive timers of the client and the server come and go; 64 held timers would be far past.)
  expect(refTimers()).toBeLessThan(timersBefore + 10);
});

describe('a remote OPA that accepts connections and never answers', () => {
  let silent: Server;
  let url: string;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  test('changes no answer: unavailable within its own timeout, an error past the shadow timeout', async () => {
    const quick = await shadowed({ bearerAuth: remoteOpa({ url, timeoutMs: 50, checkIntervalSeconds: 3600 }) }, { timeoutMs: 5_000 });
    await expectSameAnswers(quick);
    const counted = await shadowSettled(quick.guard, decidedAtLeast(CALLS.length));
    expect(counted.compared + counted.errors).toBe(0);
    expect(counted.unavailable).toBe(CALLS.length);
    // The status says why: the remote OPA's own reason.
    expect(counted.lastError?.message).toMatch(/^the candidate could not decide: .+/);

    const slow = await shadowed(remoteOpa({ url, timeoutMs: 60_000, checkIntervalSeconds: 3600 }), { timeoutMs: 50 });
    await expectSameAnswers(slow);
    const failed = await shadowSettled(slow.guard, decidedAtLeast(CALLS.length));
    expect(failed.compared).toBe(0);
    expect(failed.errors + failed.unavailable).toBe(CALLS.length);
  });
});
