import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { bearerJwt, bearerJwtAcl, type DecisionLogEvent } from '../../src/auth';
import { unavailable, type PolicySource } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { listen } from '../helpers/listen';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { HS256, token } from '../helpers/tokens';

// Issue 27, section 5 (SPEC 9.6): a 403 body stated the policy's internals ("role superuser is
// not declared in the ACL", "read:own needs ownership of path parameter userId"). As Express does
// with error details, the reasons are in the body unless NODE_ENV is production when the adapter
// is created; `exposeReasons` overrides either way; the decision log always keeps them. The same
// holds for 503 bodies, whose reasons can name the OPA or bundle server and its errors.

const FORBIDDEN = 'access to this operation is denied';
const UNAVAILABLE = 'the authorization policy cannot decide now; retry later';
const OPA_DOWN = 'the remote OPA did not decide: connect ECONNREFUSED 10.0.7.3:8181';

/** Runs `create` with NODE_ENV set to `env` (undefined: unset), and restores NODE_ENV after. */
function createdWith<T>(env: string | undefined, create: () => T): T {
  const saved = process.env.NODE_ENV;
  const set = (value: string | undefined) => (value === undefined ? delete process.env.NODE_ENV : (process.env.NODE_ENV = value));
  set(env);
  try {
    return create();
  } finally {
    set(saved);
  }
}

const bearer = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;
/** A policy source that cannot decide, the way a remote OPA that is down answers. */
const down: PolicySource = { connect: () => ({ evaluate: () => unavailable(OPA_DOWN, 2), revision: '', policyRevision: 'remote' }) };

type Case = [name: string, env: string | undefined, exposeReasons: boolean | undefined, exposed: boolean];
const CASES: Case[] = [
  ['NODE_ENV unset: the reasons are sent', undefined, undefined, true],
  ['NODE_ENV=development: the reasons are sent', 'development', undefined, true],
  ['NODE_ENV=production: a generic message', 'production', undefined, false],
  ['NODE_ENV=production, exposeReasons: true: the reasons are sent', 'production', true, true],
  ['NODE_ENV=development, exposeReasons: false: a generic message', 'development', false, false],
];

describe('bearerJwtAcl', () => {
  const openapi = {
    openapi: '3.1.0',
    info: { title: 'users', version: '1' },
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } },
    paths: { '/users/{userId}': { get: { operationId: 'getUser', parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'string' } }] } } },
  };
  const acl = { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] } } };

  async function serve(options: Record<string, unknown>) {
    const events: DecisionLogEvent[] = [];
    const app = express();
    app.use(bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: acl }, decisionLog: (event) => events.push(event), ...options }));
    app.use((_req, res) => res.json({ ok: true }));
    return { events, ...(await listen(app)) };
  }

  test.each(CASES)('%s', async (_name, env, exposeReasons, exposed) => {
    const { url, close, events } = await createdWith(env, () => serve({ exposeReasons }));
    const other = await request(url).get('/users/2').set('Authorization', await bearer({ role: 'user', userId: ['1'] }));
    const unknown = await request(url).get('/users/1').set('Authorization', await bearer({ role: 'superuser' }));
    await close();
    const reasons = ['read:own needs ownership of path parameter userId', 'no role of the caller is granted read on /users/{userId}; role superuser is not declared in the ACL'];
    expect([other.status, unknown.status]).toEqual([403, 403]);
    expect([other.body, unknown.body]).toEqual(reasons.map((reason) => ({ error: 'Forbidden', message: exposed ? reason : FORBIDDEN })));
    // The decision log keeps them either way.
    expect(events.map((event) => event.result.reasons.join('; '))).toEqual(reasons);
  });

  test('a 503 states why only where 403s do', async () => {
    for (const [env, exposed] of [[undefined, true], ['production', false]] as const) {
      const { url, close } = await createdWith(env, () => serve({ acl: undefined, policy: { bearerAuth: down } }));
      const answer = await request(url).get('/users/1').set('Authorization', await bearer({ role: 'user' }));
      await close();
      expect([answer.status, answer.headers['retry-after'], answer.body]).toEqual([503, '2', { error: 'ServiceUnavailable', message: exposed ? OPA_DOWN : UNAVAILABLE }]);
    }
  });

  test('exposeReasons must be a boolean', () => {
    expect(() => bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: acl }, exposeReasons: 'no' as never })).toThrow('exposeReasons must be true or false');
  });
});

describe('svcAcl', () => {
  class AccountService {
    getAccount({ accountId }: { accountId: string }) {
      return { accountId };
    }
  }
  const acl = { anonymous: {}, customer: { '/api/account-service/get-account': { 'read:own': ['*'] } } };
  const owners = { 'accountService.getAccount': { accountId: 'accounts' } };

  test.each(CASES)('%s', async (_name, env, exposeReasons, exposed) => {
    const events: DecisionLogEvent[] = [];
    const guard = createdWith(env, () => svcAcl({ handler: bearerJwt(HS256), acl, owners, exposeReasons, decisionLog: (event) => events.push(event) }));
    // The app is built after NODE_ENV is restored: what counts is NODE_ENV when svcAcl was created.
    const { app } = new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(AccountService));
    const answer = await request(app).get('/api/account-service/get-account?accountId=a2').set('Authorization', await bearer({ role: 'customer', accounts: ['a1'] }));
    const reason = 'read:own needs ownership of query parameter accountId';
    expect([answer.status, answer.body]).toEqual([403, { error: 'Forbidden', message: exposed ? reason : FORBIDDEN }]);
    expect(events.map((event) => event.result.reasons)).toEqual([[reason]]);
  });

  test('a 503 states why only where 403s do', async () => {
    for (const [env, exposed] of [[undefined, true], ['production', false]] as const) {
      const guard = createdWith(env, () => svcAcl({ handler: bearerJwt(HS256), policy: down }));
      const { app } = new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(AccountService));
      const answer = await request(app).get('/api/account-service/get-account?accountId=a1').set('Authorization', await bearer({ role: 'customer' }));
      expect([answer.status, answer.body]).toEqual([503, { error: 'ServiceUnavailable', message: exposed ? OPA_DOWN : UNAVAILABLE }]);
    }
  });
});

describe('BearerJWT on @oas-tools/core', () => {
  const EXAMPLE = join(__dirname, '../../examples/users-api');
  const setup = { openapi: join(EXAMPLE, 'openapi.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: join(EXAMPLE, 'permissions.yaml') }, customHandler: true };
  // One host per case, in parallel: each is a process of its own.
  const hosts = new Map<string, Promise<OasHost>>();
  beforeAll(() => {
    for (const [name, nodeEnv, exposeReasons] of CASES) hosts.set(name, startOasHost({ ...setup, nodeEnv, exposeReasons }));
    // Decisions from a bundle server that is not there (port 9, nothing listens): every guarded request is 503.
    hosts.set('no bundle', startOasHost({ ...setup, acl: undefined, bundleUrl: 'http://127.0.0.1:9/bundle.tar.gz', nodeEnv: 'production' }));
  });
  afterAll(async () => {
    for (const host of hosts.values()) (await host).stop();
  });

  test.each(CASES)('%s', async (name, _env, _exposeReasons, exposed) => {
    const host = await hosts.get(name)!;
    const response = await fetch(`${host.url}/api/v1/users/2`, { headers: { authorization: await bearer({ role: 'user', userId: [1] }) } });
    const reason = 'read:own needs ownership of path parameter userId';
    // The host's own 403 shape, from the AuthError's message.
    expect([response.status, await response.json()]).toEqual([403, { error: `AuthError: ${exposed ? reason : FORBIDDEN}` }]);
    const { events } = await host.calls();
    expect(events.map((event) => (event.result as { reasons: string[] }).reasons)).toEqual([[reason]]);
  });

  test('NODE_ENV=production: a 503 says to retry, not why', async () => {
    const host = await hosts.get('no bundle')!;
    const response = await fetch(`${host.url}/api/v1/users/2`, { headers: { authorization: await bearer({ role: 'user', userId: [1] }) } });
    expect([response.status, await response.json()]).toEqual([503, { error: 'ServiceUnavailable', message: UNAVAILABLE }]);
  });
});
