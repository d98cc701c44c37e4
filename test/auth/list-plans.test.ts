import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { bearerJwt, bearerJwtAcl, type BearerJwtAclOptions, type DecisionLogEvent, type RequestAuth } from '../../src/auth';
import { bundleConsumer, createDecisionLogUploader, remoteOpa } from '../../src/fleet';
import { writeBundle } from '../../src/fleet/bundle/bundle-writer';
import { compileAcl } from '../../src/policy';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { BundleServer } from '../helpers/bundle-server';
import { configErrorOf } from '../helpers/config-error-of';
import { express5, EXPRESS_VERSIONS, type ExpressApp } from '../helpers/guarded-express';
import { bearer, expectSamePlans, LIST_ACL, LIST_OPENAPI, type AskList } from '../helpers/list-callers';
import { listen } from '../helpers/listen';
import { LogCollector } from '../helpers/log-collector';
import { startOpa, type OpaServer } from '../helpers/opa-server';
import { HS256 } from '../helpers/tokens';

const { seenThenChanged } = require('../helpers/seen-then-changed.cjs') as { seenThenChanged: (list: unknown) => unknown };

const ROOT = join(__dirname, '../..');
const handler = bearerJwt(HS256);
const closers: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const close of closers.reverse()) await close();
});

/** An app of `express` behind bearerJwtAcl whose handler answers the plan it got (`req.auth.list`), then tries to change it. */
async function serveList(options: Omit<BearerJwtAclOptions, 'openapi' | 'handler'>, express: () => ExpressApp = express5): Promise<{ ask: AskList; seen: RequestAuth[] }> {
  const seen: RequestAuth[] = [];
  const app = express();
  app.use(bearerJwtAcl({ openapi: LIST_OPENAPI, handler, ...options }));
  app.use((req: { auth: RequestAuth }, res: { json: (body: unknown) => void }) => {
    seen.push(req.auth);
    res.json(req.auth.list === undefined ? {} : { list: seenThenChanged(req.auth.list) });
  });
  const served = await listen(app as unknown as RequestListener);
  closers.push(served.close);
  const ask: AskList = async (target, authorization) => {
    const answer = await fetch(`${served.url}${target === 'list' ? '/orders' : '/orders/7'}`, { headers: authorization === undefined ? {} : { authorization } });
    return { status: answer.status, body: (await answer.json()) as object, challenge: answer.headers.get('www-authenticate') };
  };
  return { ask, seen };
}

/** Asks until the source has its data (a bundle not yet downloaded, OPA's data not yet compared answer 503). */
async function settledAsk(ask: AskList): Promise<AskList> {
  const support = await bearer({ role: 'support' });
  for (let i = 0; i < 200 && (await ask('list', support)).status === 503; i++) await new Promise((resolve) => setTimeout(resolve, 25));
  return ask;
}

function listData() {
  return compileAcl({ openapi: LIST_OPENAPI, acl: LIST_ACL, scheme: 'bearerAuth' });
}

describe('req.auth.list on bearerJwtAcl (x-acl-list)', () => {
  test.each(EXPRESS_VERSIONS)('%s, a local acl: the handler gets the plan; a plan of no item is the 403 of any deny', async (_name, express) => {
    const { ask, seen } = await serveList({ acl: { bearerAuth: LIST_ACL } }, express);
    await expectSamePlans(ask);
    // The same object as the decision's, and only on the list operation.
    expect(seen.every((auth) => auth.list === auth.decision.list)).toBe(true);
    await ask('item', await bearer({ role: 'support' }));
    expect(seen.at(-1)).not.toHaveProperty('list');
  });

  test('without a decision cache each request gets a plan of its own', async () => {
    const { ask, seen } = await serveList({ acl: { bearerAuth: LIST_ACL }, decisionCacheSize: 0 });
    await expectSamePlans(ask);
    expect(new Set(seen.map((auth) => auth.list)).size).toBe(seen.length);
  });

  test('policy: bundleConsumer serving a bundle of the compiled data and policy.wasm with its plan entrypoint', async () => {
    const bundles = new BundleServer();
    closers.push(() => bundles.dispose());
    await bundles.start();
    const rego = { 'policies/authz.rego': readFileSync(join(ROOT, 'policies/authz.rego'), 'utf8') };
    bundles.publish('bundle.tar.gz', await writeBundle({ data: listData(), wasm: readFileSync(policyWasmPath()), rego, revision: 'lists' }));
    const policy = bundleConsumer({ url: bundles.url('bundle.tar.gz'), polling: { minDelaySeconds: 60, maxDelaySeconds: 60 } });
    closers.push(() => policy.close());
    const { ask } = await serveList({ policy: { bearerAuth: policy } });
    await policy.ready();
    await expectSamePlans(await settledAsk(ask));
  });

  describe('policy: remoteOpa against opa run --server with policies/authz.rego and the compiled data', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-list-opa-'));
    let opa: OpaServer;
    beforeAll(async () => {
      writeFileSync(join(dir, 'data.json'), JSON.stringify({ svcgate: { acl: listData() } }));
      opa = await startOpa([join(ROOT, 'policies/authz.rego'), join(dir, 'data.json')]);
    });
    afterAll(async () => {
      await opa.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('OPA answers the plan at /v1/data/svcgate/authz/plan, and the handler gets it as from the local policy', async () => {
      const { ask } = await serveList({ policy: { bearerAuth: remoteOpa({ url: opa.url }) } });
      await expectSamePlans(await settledAsk(ask));
      expect(opa.log()).toContain('/v1/data/svcgate/authz/plan');
    });
  });

  test('a remote plan that says more than its decision or than the token is no plan: a 403, never the rows it names', async () => {
    // A remote OPA whose plan rule is not the fixed policy's (another version, a mistake, an attacker): its answer
    // must still be one the per-item decisions could give for this token.
    const own = { allow: true, attributes: ['*'], role: 'customer', possession: 'own', scopes: [], reasons: [] };
    const answers: Record<string, unknown> = {
      'all for own': { ...own, list: { kind: 'all', anyOf: [], attributes: ['*'] } },
      'some for any': { ...own, possession: 'any', list: { kind: 'some', anyOf: [{ orderId: ['7'] }], attributes: ['*'] } },
      'values the token does not hold': { ...own, list: { kind: 'some', anyOf: [{ orderId: ['7', '8'] }], attributes: ['*'] } },
      'attributes other than the decision': { ...own, list: { kind: 'some', anyOf: [{ orderId: ['7'] }], attributes: ['*', 'secret'] } },
      'the token values': { ...own, list: { kind: 'some', anyOf: [{ orderId: ['7'] }], attributes: ['*'] } },
      'a parameter the item does not own': { ...own, list: { kind: 'some', anyOf: [{ orderId: ['7'], customerId: ['u1'] }], attributes: ['*'] } },
      'an operator for a value': { ...own, list: { kind: 'some', anyOf: [{ orderId: [{ $ne: null }] }], attributes: ['*'] } },
      'an entry keyed __proto__': { ...own, list: JSON.parse('{"kind":"some","anyOf":[{"__proto__":["7"]}],"attributes":["*"]}') as unknown },
      'no list at all': { ...own, list: 'all' },
    };
    const opa = express5();
    let answer = '';
    (opa as unknown as { get: (path: string, handler: (req: unknown, res: { json: (body: unknown) => void }) => void) => void }).get('/v1/data/svcgate/acl', (_req, res) => res.json({ result: listData() }));
    (opa as unknown as { post: (path: string, handler: (req: unknown, res: { json: (body: unknown) => void }) => void) => void }).post('/v1/data/svcgate/authz/plan', (_req, res) => res.json({ result: answers[answer] }));
    const served = await listen(opa as unknown as RequestListener);
    closers.push(served.close);
    const { ask } = await serveList({ policy: { bearerAuth: remoteOpa({ url: served.url, decisionCacheSize: 0 }) } });
    const customer = await bearer({ role: 'customer', orders: [7] });
    const statuses: Record<string, number> = {};
    for (const name of Object.keys(answers)) {
      answer = name;
      let status = 503;
      for (let i = 0; i < 200 && status === 503; i++) status = (await ask('list', customer)).status;
      statuses[name] = status;
    }
    expect(statuses).toEqual({
      'all for own': 403,
      'some for any': 403,
      'values the token does not hold': 403,
      'attributes other than the decision': 403,
      'the token values': 200,
      'a parameter the item does not own': 403,
      'an operator for a value': 403,
      'an entry keyed __proto__': 403,
      'no list at all': 403,
    });
  });

  test('the decision log names the plan entrypoint and holds the plan; a mask of the claims and the plan values erases both', async () => {
    const collector = new LogCollector();
    await collector.start();
    const logs = createDecisionLogUploader({ url: collector.url, minDelaySeconds: 0.05, maxDelaySeconds: 0.1, mask: ['/input/claims', '/result/list/anyOf'] });
    closers.push(async () => {
      await logs.close();
      await collector.stop();
    });
    const events: DecisionLogEvent[] = [];
    const { ask } = await serveList({
      acl: { bearerAuth: LIST_ACL },
      decisionLog: (event) => {
        events.push(event);
        logs.log(event);
      },
    });
    const customer = await bearer({ role: 'customer', orders: [7, '9'] });
    await ask('list', customer);
    await ask('list', await bearer({ role: 'guest' }));
    await ask('item', customer);
    expect(events.map(({ path, operation, result }) => ({ path, operation, allow: result.allow, list: result.list }))).toEqual([
      { path: 'svcgate/authz/plan', operation: 'GET /orders', allow: true, list: { kind: 'some', anyOf: [{ orderId: [7, 9] }], attributes: ['!internalNote', '*'] } },
      { path: 'svcgate/authz/plan', operation: 'GET /orders', allow: false, list: { kind: 'none', anyOf: [], attributes: [] } },
      { path: 'svcgate/authz/decision', operation: 'GET /orders/{orderId}', allow: true, list: undefined },
    ]);
    await logs.flush();
    const [uploaded] = collector.events;
    expect(uploaded).toMatchObject({ path: 'svcgate/authz/plan', result: { allow: true, list: { kind: 'some', attributes: ['!internalNote', '*'] } }, erased: ['/input/claims', '/result/list/anyOf'] });
    expect(JSON.stringify(uploaded)).not.toMatch(/"9"|\[7/);
  });

  test('a decision source that allows a list operation without the plan of its items is a 403, and the handler never runs', async () => {
    const allowAll = { allow: true, attributes: ['*'], role: 'support', possession: 'any' as const, scopes: [], reasons: [] };
    const source = { connect: () => ({ evaluate: () => allowAll, revision: 'r', policyRevision: 'own source' }) };
    const { ask, seen } = await serveList({ policy: { bearerAuth: source } });
    const support = await bearer({ role: 'support' });
    expect(await ask('list', support)).toEqual({ status: 403, body: { error: 'Forbidden', message: 'the policy allowed the list operation (x-acl-list) without the plan of its items (kind missing), so no handler may run', code: 'ERR_SVCGATE_FORBIDDEN' }, challenge: null });
    expect(seen).toHaveLength(0);
    expect((await ask('item', support)).status).toBe(200);
  });

  test('a token without the scopes of the list and its item is the 403 of any scope deny, with the insufficient_scope challenge', async () => {
    const openapi = load(readFileSync(LIST_OPENAPI, 'utf8')) as { paths: Record<string, { get: Record<string, unknown> }> };
    openapi.paths['/orders']!.get.security = [{ bearerAuth: ['orders:list'] }];
    openapi.paths['/orders/{orderId}']!.get.security = [{ bearerAuth: ['orders:read'] }];
    const app = express5();
    app.use(bearerJwtAcl({ openapi, handler, acl: { bearerAuth: LIST_ACL } }));
    app.use((req: { auth: RequestAuth }, res: { json: (body: unknown) => void }) => res.json({ list: req.auth.list }));
    const served = await listen(app as unknown as RequestListener);
    closers.push(served.close);
    const get = async (path: string, claims: Record<string, unknown>) => {
      const answer = await fetch(`${served.url}${path}`, { headers: { authorization: await bearer(claims) } });
      return { status: answer.status, challenge: answer.headers.get('www-authenticate'), body: (await answer.json()) as Record<string, unknown> };
    };
    const listDeny = await get('/orders', { role: 'support', scope: 'orders:read' });
    expect(listDeny).toEqual({ status: 403, challenge: 'Bearer error="insufficient_scope", scope="orders:list orders:read"', body: { error: 'Forbidden', message: expect.any(String), code: 'ERR_SVCGATE_INSUFFICIENT_SCOPE' } });
    const itemDeny = await get('/orders/7', { role: 'support' });
    expect(itemDeny).toEqual({ ...listDeny, challenge: 'Bearer error="insufficient_scope", scope="orders:read"', body: { ...listDeny.body, message: expect.any(String) } });
    expect(await get('/orders', { role: 'support', scope: 'orders:read orders:list' })).toEqual({ status: 200, challenge: null, body: { list: { kind: 'all', anyOf: [], attributes: ['*'] } } });
  });

  test('with exposeReasons false a list deny says what any deny says', async () => {
    const { ask } = await serveList({ acl: { bearerAuth: LIST_ACL }, exposeReasons: false });
    for (const claims of [{ role: 'guest' }, { role: 'customer' }]) {
      const authorization = await bearer(claims);
      expect(await ask('list', authorization)).toEqual(await ask('item', await bearer({ role: 'guest' })));
    }
  });

  test('a caller another scheme let in gets a plan of no item, as its filter keeps nothing', async () => {
    const openapi = load(readFileSync(LIST_OPENAPI, 'utf8')) as { components: { securitySchemes: Record<string, unknown> }; security: unknown };
    openapi.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'x-api-key' };
    openapi.security = [{ bearerAuth: [] }, { apiKey: [] }];
    const app = express5();
    const events: DecisionLogEvent[] = [];
    app.use(bearerJwtAcl({ openapi, handler, acl: { bearerAuth: LIST_ACL }, otherSchemes: { apiKey: (req) => req.headers['x-api-key'] === 'k' }, decisionLog: (event) => events.push(event) }));
    app.use((req: { auth: RequestAuth }, res: { json: (body: unknown) => void }) => res.json({ list: req.auth.list, schemes: req.auth.schemes, same: req.auth.list === req.auth.decision.list }));
    const served = await listen(app as unknown as RequestListener);
    closers.push(served.close);
    const answer = await fetch(`${served.url}/orders`, { headers: { 'x-api-key': 'k' } });
    // As on every list operation: list is decision.list, and the log's event is the plan entrypoint's, with the plan.
    expect(await answer.json()).toEqual({ list: { kind: 'none', anyOf: [], attributes: [] }, schemes: ['apiKey'], same: true });
    expect(events.map(({ path, result }) => ({ path, list: result.list }))).toEqual([{ path: 'svcgate/authz/plan', list: { kind: 'none', anyOf: [], attributes: [] } }]);
  });
});

describe('checkOwnership with a list operation is a ConfigError at start-up', () => {
  const checkOwnership = () => true;
  const refusal = (options: Omit<BearerJwtAclOptions, 'openapi' | 'handler'>) => configErrorOf(() => bearerJwtAcl({ openapi: LIST_OPENAPI, handler, checkOwnership, ...options }));

  test('with a local acl, a bundle or a remote OPA: it names the list operation and the fix', () => {
    const sources = [
      { acl: { bearerAuth: LIST_ACL } },
      { policy: { bearerAuth: bundleConsumer({ url: 'http://127.0.0.1:9/bundle.tar.gz' }) } },
      { policy: { bearerAuth: remoteOpa({ url: 'http://127.0.0.1:9' }) } },
    ];
    for (const source of sources) {
      const error = refusal(source);
      expect({ file: error.file, path: error.path }).toEqual({ file: '<bearerJwtAcl options>', path: '$.checkOwnership' });
      expect(error.problem).toBe('checkOwnership decides ownership one item at a time, so no plan can say which items of the list operation GET /orders (listOrders) the caller owns (it lists GET /orders/{orderId})');
      expect(error.fix).toBe("bind the item's owned parameters to token claims with x-acl-binding and drop checkOwnership; or keep checkOwnership, drop the x-acl-list of GET /orders and filter its rows in the handler");
    }
  });

  test('an API without a list operation keeps checkOwnership', () => {
    const openapi = load(readFileSync(LIST_OPENAPI, 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    delete openapi.paths['/orders']!.get!['x-acl-list'];
    expect(() => bearerJwtAcl({ openapi, handler, checkOwnership, acl: { bearerAuth: LIST_ACL } })).not.toThrow();
  });
});
