import { request as httpRequest } from 'node:http';
import type { DecisionLogEvent } from '../../src/auth';
import { createDecisionLogUploader, type DecisionLogUploader } from '../../src/fleet';
import type { Decision, PolicyInput, PolicySource } from '../../src/policy';
import { examplePermissions } from '../helpers/bundles';
import { EXPRESS_VERSIONS } from '../helpers/guarded-express';
import { LIST_ACL, LIST_OPENAPI } from '../helpers/list-callers';
import { LogCollector } from '../helpers/log-collector';
import { token } from '../helpers/tokens';
import { decided, decidedAtLeast, send, shadowApp, shadowSettled, type ShadowApp } from './shadow-apps';

// The shadow seen by an attacker and an operator: candidates that answer hostile values or touch
// what they are given, answers that never end or whose client goes away, logs that must not leak.

const opened: ShadowApp[] = [];
const uploaders: DecisionLogUploader[] = [];
const collector = new LogCollector();
beforeAll(() => collector.start());
afterAll(() => collector.stop());
afterEach(async () => {
  for (const app of opened.splice(0)) await app.close();
  for (const uploader of uploaders.splice(0)) await uploader.close();
  collector.batches.splice(0);
});

function customCandidate(evaluate: (input: PolicyInput) => unknown): PolicySource {
  return { connect: () => ({ evaluate: evaluate as (input: PolicyInput) => Decision, revision: 'custom-data', policyRevision: 'custom-policy' }) };
}

async function opening(app: Promise<ShadowApp>): Promise<ShadowApp> {
  opened.push(await app);
  return opened.at(-1)!;
}

function uploader(mask: string[] = []): DecisionLogUploader {
  const created = createDecisionLogUploader({ url: collector.url, mask, minDelaySeconds: 3600, maxDelaySeconds: 3600 });
  uploaders.push(created);
  return created;
}

const owner = { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } };
const DENY = { allow: false, attributes: [], scopes: [], reasons: ['candidate'] };

test('a candidate whose answer has a `then` that throws when read is counted as an error; the process goes on answering', async () => {
  const hostile = { allow: true, attributes: [], scopes: [], reasons: [] } as Record<string, unknown>;
  Object.defineProperty(hostile, 'then', {
    get() {
      throw new Error('then is a trap');
    },
  });
  const app = await opening(shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: customCandidate(() => hostile) } }));
  for (let i = 0; i < 3; i++) expect((await send(app.url, owner)).status).toBe(200);
  const status = await shadowSettled(app.guard, decidedAtLeast(3));
  expect(status).toMatchObject({ compared: 0, errors: 3, lastError: { message: 'then is a trap' } });
});

test('a candidate that changes the input it is given changes nothing the decision log holds of the active decision', async () => {
  const log = uploader();
  const mutating = customCandidate((input) => {
    const taken = input as unknown as Record<string, unknown>;
    taken.role = 'admin';
    taken.claims = { planted: true };
    delete taken.params;
    return DENY;
  });
  const app = await opening(shadowApp({ acl: { bearerAuth: examplePermissions() }, decisionLog: log.log, shadow: { source: mutating } }));
  expect((await send(app.url, owner)).status).toBe(200);
  await shadowSettled(app.guard, (status) => status.divergences === 1);
  await log.flush();
  const [active, divergence] = collector.events as unknown as DecisionLogEvent[];
  expect(divergence!.shadow).toBeDefined();
  for (const event of [active!, divergence!]) {
    expect(event.input.role).toBe('user');
    expect(JSON.stringify(event.input)).not.toMatch(/planted/);
    expect(event.input).toHaveProperty('params');
  }
});

test('the uploader masks the candidate’s result as it masks the active one: a list plan’s claim values do not leave the process', async () => {
  const log = uploader(['/input/claims', '/result/list/anyOf']);
  // The candidate shows customers the internal note too: their list plan widens.
  const candidate = structuredClone(LIST_ACL) as Record<string, Record<string, Record<string, string[]>>>;
  candidate.customer!['/orders/{orderId}']!['read:own'] = ['*'];
  const app = await opening(shadowApp({ openapi: LIST_OPENAPI, acl: { bearerAuth: LIST_ACL }, decisionLog: log.log, shadow: { source: candidate } }));
  const answer = await send(app.url, { method: 'GET', path: '/orders', claims: { role: 'customer', orders: [7741, 9952] } }, '');
  expect(answer.status).toBe(200);
  expect(answer.body).toMatch(/7741/);
  await shadowSettled(app.guard, (status) => status.divergences === 1);
  await log.flush();
  const divergence = collector.events.find((event) => event.shadow !== undefined)!;
  expect(divergence).toMatchObject({ path: 'svcgate/authz/plan', shadow: { change: 'widened', result: { allow: true, list: { kind: 'some', attributes: ['*'] } } } });
  expect(JSON.stringify(collector.events)).not.toMatch(/7741|9952/);
  expect(divergence.erased).toEqual(expect.arrayContaining(['/result/list/anyOf', '/shadow/result/list/anyOf']));
});

describe.each(EXPRESS_VERSIONS)('%s', (_name, host) => {
  test('an answer never ended is decided by the candidate only once its client goes away; the slot is not held meanwhile', async () => {
    let started!: () => void;
    const handlerRan = new Promise<void>((resolve) => (started = resolve));
    const app = await opening(
      shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: examplePermissions() } }, host, (req, _res, next) => {
        // A handler that never answers the request marked so.
        if (req.headers['x-hang'] === undefined) return next();
        started();
      }),
    );
    const authorization = `Bearer ${await token(owner.claims)}`;
    const client = httpRequest(`${app.url}/api/v1/users/1`, { headers: { authorization, 'x-hang': '1' } });
    client.on('error', () => undefined);
    client.end();
    await handlerRan;
    // Another request is answered and decided meanwhile.
    expect((await send(app.url, owner)).status).toBe(200);
    expect(decided(await shadowSettled(app.guard, (status) => decided(status) === 1))).toBe(1);
    client.destroy();
    const status = await shadowSettled(app.guard, (counted) => decided(counted) === 2);
    expect(status).toMatchObject({ compared: 2, errors: 0, skipped: { busy: 0 } });
  });

  test('a client that goes away before an awaited decision is made: the request is compared all the same', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const checking = new Promise<void>((resolve) => (asked = resolve));
    const app = await opening(
      shadowApp(
        {
          acl: { bearerAuth: examplePermissions() },
          shadow: { source: examplePermissions() },
          // Ownership decided by the app: the decision waits for it.
          checkOwnership: async () => {
            asked();
            await held;
            return true;
          },
        },
        host,
      ),
    );
    const authorization = `Bearer ${await token({ role: 'user', userId: 5 })}`;
    const client = httpRequest(`${app.url}/api/v1/users/1`, { headers: { authorization } });
    client.on('error', () => undefined);
    client.end();
    await checking;
    client.destroy();
    // The server sees the client go before the check answers.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const status = await shadowSettled(app.guard, (counted) => decided(counted) === 1);
    expect(status).toMatchObject({ compared: 1, errors: 0 });
  });
});

test('a decisionLog that throws changes no answer, and the shadow still counts its divergences', async () => {
  let calls = 0;
  const app = await opening(
    shadowApp({
      acl: { bearerAuth: examplePermissions() },
      decisionLog: () => {
        calls += 1;
        throw new Error('log down');
      },
      shadow: { source: customCandidate(() => DENY) },
    }),
  );
  expect((await send(app.url, owner)).status).toBe(200);
  const status = await shadowSettled(app.guard, (counted) => decided(counted) === 1);
  expect(status).toMatchObject({ compared: 1, divergences: 1, errors: 0 });
  // The request's event and the divergence's were both offered to the log.
  expect(calls).toBe(2);
});

test('a req.res that is not a response (replaced by a middleware) changes no answer: the request is counted as an error', async () => {
  const app = await opening(
    shadowApp({ acl: { bearerAuth: examplePermissions() }, shadow: { source: examplePermissions() } }, undefined, undefined, (req, _res, next) => {
      (req as { res: unknown }).res = { closed: false };
      next();
    }),
  );
  const answer = await send(app.url, owner);
  expect(answer.status).toBe(200);
  expect(app.guard.shadowStatus()).toMatchObject({ compared: 0, errors: 1 });
});
