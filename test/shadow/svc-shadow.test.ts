import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { z } from 'zod';
import { bearerJwt, type DecisionLogEvent } from '../../src/auth';
import type { DecisionSource, PolicySource } from '../../src/policy/evaluate/decision-source';
import { remoteOpa, writeBundle } from '../../src/fleet';
import { compileAcl } from '../../src/policy';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { svcAcl, svcAclOpenApi, SvcApi, SvcContainer, type SvcAclInterceptor, type SvcAclOptions } from '../../src/svc';
import { configErrorOf } from '../helpers/config-error-of';
import { consumerFixture } from '../helpers/consumer-fixture';
import { startOpa } from '../helpers/opa-server';
import { HS256, token } from '../helpers/tokens';

// svcAcl's shadow option, through SvcApi on Express with real HTTP (supertest) and the real policy.wasm.

class AccountService {
  static schemas = { getAccount: z.object({ accountId: z.string() }) };
  getAccount({ accountId }: { accountId: string }) {
    return { accountId, balance: 10, secret: 'pin' };
  }
  getAllAccounts() {
    return [{ accountId: 'acc-1' }, { accountId: 'acc-2' }];
  }
}

type Acl = Record<string, Record<string, unknown>>;
const ACL: Acl = {
  anonymous: {},
  customer: { '/api/account-service/get-account': { 'read:own': ['*', '!secret'] } },
  banker: { $extend: ['customer'], '/api/account-service/get-all-accounts': { 'read:any': ['*'] } },
};
const OWNERS = { 'accountService.getAccount': { accountId: 'accounts' } };
/** The candidate that takes read:own on get-account away from customers. */
const REVOKED: Acl = { ...ACL, customer: {} };
/** The candidate that lets customers read every account too. */
const WIDENED: Acl = { ...ACL, customer: { ...ACL.customer, '/api/account-service/get-all-accounts': { 'read:any': ['*'] } } };

const fixture = consumerFixture();
const handler = bearerJwt(HS256);

function guarded(shadow?: SvcAclOptions['shadow']) {
  const events: DecisionLogEvent[] = [];
  const guard = svcAcl({ handler, acl: ACL, owners: OWNERS, decisionLog: (event) => events.push(event), ...(shadow === undefined ? {} : { shadow }) });
  const app = new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(AccountService)).app;
  return { app, guard, events };
}

const as = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;

/** The same requests each time: an owner, a stranger, a customer listing every account, a banker doing so, and a caller without a token. */
async function requests(): Promise<{ path: string; authorization?: string }[]> {
  const customer = await as({ role: 'customer', accounts: ['acc-1'] });
  return [
    { path: '/api/account-service/get-account?accountId=acc-1', authorization: customer },
    { path: '/api/account-service/get-account?accountId=acc-2', authorization: customer },
    { path: '/api/account-service/get-all-accounts', authorization: customer },
    { path: '/api/account-service/get-all-accounts', authorization: await as({ role: 'banker' }) },
    { path: '/api/account-service/get-account?accountId=acc-1' },
  ];
}

/** Status and body of each request, in order. */
async function answers(app: Parameters<typeof request>[0]): Promise<{ status: number; body: unknown }[]> {
  const seen = [];
  for (const { path, authorization } of await requests()) {
    const call = request(app).get(path);
    const answer = await (authorization === undefined ? call : call.set('Authorization', authorization));
    seen.push({ status: answer.status, body: answer.body as unknown });
  }
  return seen;
}

/** Polls shadowStatus() until `count` sampled requests were compared, unavailable or failed. */
async function candidateDone(guard: SvcAclInterceptor, count: number): Promise<void> {
  for (let poll = 0; poll < 500; poll++) {
    const status = guard.shadowStatus()!;
    if (status.compared + status.unavailable + status.errors >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`the candidate did not finish ${count} requests: ${JSON.stringify(guard.shadowStatus())}`);
}

/** A candidate source whose every decision is `evaluate`'s. */
const customSource = (evaluate: DecisionSource['evaluate']): PolicySource => ({ connect: () => ({ evaluate, revision: 'candidate-data', policyRevision: 'candidate-policy' }) });

test('a candidate that revokes read:own shows narrowed divergences in the log and shadowStatus(), while every answer is the active policy’s', async () => {
  const without = await answers(guarded().app);
  const { app, guard, events } = guarded({ source: REVOKED });
  expect(await answers(app)).toEqual(without);
  // The owner's read was allowed (200 without the secret), the stranger's denied either way.
  expect(without.map((answer) => answer.status)).toEqual([200, 403, 403, 200, 401]);
  await candidateDone(guard, 5);

  const status = guard.shadowStatus()!;
  expect(status).toMatchObject({ compared: 5, divergences: 1, changes: { narrowed: 1, widened: 0, changed: 0 }, errors: 0, unavailable: 0 });
  expect(status.byOperation['GET /api/account-service/get-account']).toMatchObject({ compared: 3, divergences: 1, narrowed: 1 });
  expect(status.byRole).toMatchObject({ customer: { compared: 3, divergences: 1, narrowed: 1 }, banker: { compared: 1, divergences: 0 }, anonymous: { compared: 1, divergences: 0 } });
  expect(guard.status()).toEqual({ shadow: expect.objectContaining({ compared: 5, divergences: 1 }) });

  const divergences = events.filter((event) => event.shadow !== undefined);
  expect(divergences).toHaveLength(1);
  const [divergence] = divergences;
  expect(divergence).toMatchObject({ operation: 'GET /api/account-service/get-account', result: { allow: true }, shadow: { change: 'narrowed', result: { allow: false } } });
  expect(divergence!.shadow!.policy_revision).toBe(status.candidate.policy_revision);
  expect(divergence!.shadow!.data_revision).toBe(status.candidate.data_revision);
  expect(divergence!.shadow!.data_revision).not.toBe(status.active.data_revision);
  expect(status.examples).toEqual([expect.objectContaining({ decision_id: divergence!.decision_id, operation: 'GET /api/account-service/get-account', role: 'customer', change: 'narrowed' })]);
  // Each request was logged once as the active policy decided it; the divergence is an event of its own.
  expect(events.filter((event) => event.shadow === undefined)).toHaveLength(5);
});

test('a candidate that widens is counted as widened, and the answers stay the active policy’s', async () => {
  const without = await answers(guarded().app);
  const { app, guard, events } = guarded({ source: WIDENED });
  expect(await answers(app)).toEqual(without);
  await candidateDone(guard, 5);
  expect(guard.shadowStatus()).toMatchObject({ compared: 5, divergences: 1, changes: { widened: 1, narrowed: 0, changed: 0 } });
  expect(guard.shadowStatus()!.byOperation['GET /api/account-service/get-all-accounts']).toMatchObject({ compared: 2, widened: 1 });
  expect(events.find((event) => event.shadow !== undefined)).toMatchObject({ result: { allow: false }, shadow: { change: 'widened', result: { allow: true } } });
});

test('a bundleConsumer candidate before its first bundle counts unavailable and changes nothing', async () => {
  const without = await answers(guarded().app);
  const { policy } = fixture.consumer();
  const { app, guard, events } = guarded({ source: policy });
  expect(await answers(app)).toEqual(without);
  await candidateDone(guard, 5);
  expect(guard.shadowStatus()).toMatchObject({ compared: 0, divergences: 0, unavailable: 5, errors: 0, candidate: { data_revision: '' } });
  expect(events.filter((event) => event.shadow !== undefined)).toEqual([]);
});

test('a remote OPA candidate (a real opa run serving the revoked ACL compiled from svcAclOpenApi) narrows the owner’s read; the answers stay the same', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-svc-shadow-'));
  const file = join(dir, 'candidate.tar.gz');
  const openapi = svcAclOpenApi(new SvcApi().from(new SvcContainer().ofLocal(AccountService)), OWNERS);
  const rego = { 'policies/authz.rego': readFileSync(join(__dirname, '../../policies/authz.rego'), 'utf8') };
  writeFileSync(file, await writeBundle({ data: compileAcl({ openapi, acl: REVOKED, scheme: 'bearerAuth' }), wasm: readFileSync(policyWasmPath()), rego, revision: 'revoked' }));
  const opa = await startOpa(['--bundle', file]);
  try {
    const without = await answers(guarded().app);
    const { app, guard, events } = guarded({ source: remoteOpa({ url: opa.url, checkIntervalSeconds: 3600 }) });
    // Until the source has checked OPA's data against the routes, the candidate answers unavailable.
    let rounds = 0;
    for (; rounds < 200 && guard.shadowStatus()!.compared === 0; rounds++) await answers(app);
    await candidateDone(guard, 5 * rounds);
    const before = guard.shadowStatus()!;
    expect(await answers(app)).toEqual(without);
    await candidateDone(guard, 5 * (rounds + 1));
    const after = guard.shadowStatus()!;
    expect(after.compared - before.compared).toBe(5);
    expect(after.divergences - before.divergences).toBe(1);
    expect(after.errors).toBe(0);
    expect(after.candidate.policy_revision).toContain(opa.url.replace('http://', ''));
    expect(events.filter((event) => event.shadow !== undefined).at(-1)).toMatchObject({ operation: 'GET /api/account-service/get-account', shadow: { change: 'narrowed', result: { allow: false } } });
  } finally {
    await opa.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a candidate whose evaluate throws, or whose decision never settles, changes no answer and is counted as an error', async () => {
  const without = await answers(guarded().app);
  const throwing = guarded({
    source: customSource(() => {
      throw new Error('candidate store is down');
    }),
  });
  expect(await answers(throwing.app)).toEqual(without);
  await candidateDone(throwing.guard, 5);
  expect(throwing.guard.shadowStatus()).toMatchObject({ compared: 0, errors: 5, lastError: { message: 'candidate store is down' } });

  const hanging = guarded({ source: customSource(() => new Promise(() => undefined)), timeoutMs: 20 });
  expect(await answers(hanging.app)).toEqual(without);
  await candidateDone(hanging.guard, 5);
  expect(hanging.guard.shadowStatus()).toMatchObject({ compared: 0, errors: 5, lastError: { message: 'the candidate did not decide within 20 ms' } });
  expect([...throwing.events, ...hanging.events].filter((event) => event.shadow !== undefined)).toEqual([]);
});

test('shadowStatus() is null without shadow, and the candidate is compiled with the routes when the app is built', () => {
  expect(guarded().guard.shadowStatus()).toBeNull();
  expect(guarded().guard.status()).toEqual({ shadow: null });
  const guard = svcAcl({ handler, acl: ACL, owners: OWNERS, shadow: { source: ACL } });
  // Before the app is built there is no candidate yet.
  expect(guard.shadowStatus()).toBeNull();
  void new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(AccountService)).app;
  expect(guard.shadowStatus()).toMatchObject({ compared: 0, sampleRate: 1, maxPerSecond: null });
});

test('bad shadow options are ConfigErrors naming the option', () => {
  const build = (shadow: unknown) => () => new SvcApi().interceptAll(svcAcl({ handler, acl: ACL, owners: OWNERS, shadow: shadow as SvcAclOptions['shadow'] })).from(new SvcContainer().ofLocal(AccountService)).app;
  expect(configErrorOf(build({ source: REVOKED, sampleRate: 1.5 })).message).toContain('<svcAcl options> at $.shadow.sampleRate: shadow.sampleRate must be from 0 to 1');
  expect(configErrorOf(build({ source: REVOKED, timeoutMs: 0 })).message).toContain('at $.shadow.timeoutMs');
  expect(configErrorOf(build({ source: REVOKED, maxPerSecond: 2.5 })).message).toContain('at $.shadow.maxPerSecond');
  expect(configErrorOf(build({ sampleRate: 1 })).message).toContain('at $.shadow.source');
  // A candidate declaration is checked as acl is, against the routes, when the app is built.
  const unknownRoute = configErrorOf(build({ source: { customer: { '/api/account-service/get-acount': { 'read:any': ['*'] } } } }));
  expect(unknownRoute.message).toContain('/api/account-service/get-acount');
});
