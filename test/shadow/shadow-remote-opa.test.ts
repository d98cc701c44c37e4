import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DecisionLogEvent } from '../../src/auth';
import { remoteOpa } from '../../src/fleet';
import { exampleBundle, examplePermissions } from '../helpers/bundles';
import { withoutUserRead } from '../helpers/consumer-fixture';
import { startOpa, type OpaServer } from '../helpers/opa-server';
import { decided, send, shadowApp, shadowSettled, type Call, type ShadowApp } from './shadow-apps';

// SPEC 12.1 with a remoteOpa candidate: a real `opa run` serves a bundle that takes read:own on
// users away from the user role, while the in-process declaration answers.

const dir = mkdtempSync(join(tmpdir(), 'svcgate-shadow-opa-'));
let opa: OpaServer;
let app: ShadowApp;
let plain: ShadowApp;
const events: DecisionLogEvent[] = [];

beforeAll(async () => {
  const file = join(dir, 'candidate.tar.gz');
  writeFileSync(file, await exampleBundle({ revision: 'candidate', edit: withoutUserRead }));
  opa = await startOpa(['--bundle', file]);
  const candidate = remoteOpa({ url: opa.url, checkIntervalSeconds: 3600 });
  app = await shadowApp({ acl: { bearerAuth: examplePermissions() }, decisionLog: (event) => events.push(event), shadow: { source: { bearerAuth: candidate } } });
  plain = await shadowApp({ acl: { bearerAuth: examplePermissions() } });
});
afterAll(async () => {
  await app?.close();
  await plain?.close();
  await opa?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const owner: Call = { method: 'GET', path: '/users/3', claims: { role: 'user', userId: 3 } };
const CALLS: Call[] = [owner, { method: 'GET', path: '/users/2', claims: { role: 'user', userId: 3 } }, { method: 'GET', path: '/users/2', claims: { role: 'admin' } }, { method: 'GET', path: '/users', claims: { role: 'admin' } }, owner];

test('a remote OPA candidate that revokes a permission: the same answers, and each owner read counted as narrowed', async () => {
  // Until the source has checked OPA's data against the document, it answers unavailable.
  for (let i = 0; i < 200 && app.guard.shadowStatus()!.compared === 0; i++) {
    await send(app.url, { method: 'GET', path: '/users', claims: { role: 'admin' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const before = await shadowSettled(app.guard, (status) => status.compared > 0);
  for (const call of CALLS) expect({ call, answer: await send(app.url, call) }).toEqual({ call, answer: await send(plain.url, call) });
  const after = await shadowSettled(app.guard, (status) => decided(status) === decided(before) + CALLS.length);
  expect(after.unavailable - before.unavailable).toBe(0);
  expect(after.errors).toBe(0);
  expect(after.compared - before.compared).toBe(CALLS.length);
  expect(after.divergences - before.divergences).toBe(2);
  expect(after.changes).toEqual({ widened: 0, narrowed: 2, changed: 0 });
  expect(after.candidate.policy_revision).toContain(opa.url.replace('http://', ''));
  const divergences = events.filter((event) => event.shadow !== undefined);
  expect(divergences).toHaveLength(2);
  for (const event of divergences) expect(event).toMatchObject({ operation: 'GET /users/{userId}', result: { allow: true }, shadow: { change: 'narrowed', result: { allow: false }, ...after.candidate } });
});
