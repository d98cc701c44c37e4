import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { failedStart, startOasHost, type OasHost, type OasSetup } from '../helpers/oas-host';
import { bearer, expectSamePlans, LIST_ACL, LIST_OPENAPI, type AskList } from '../helpers/list-callers';
import { HS256 } from '../helpers/tokens';

// res.locals.oas.acl.list in the real @oas-tools/core 3.1.0 (BearerJWT), in a process of its own, over HTTP on 127.0.0.1.
const standard: OasSetup = { openapi: LIST_OPENAPI, jwt: HS256, position: 2, acl: { bearerAuth: LIST_ACL }, customHandler: true };

describe('res.locals.oas.acl.list on @oas-tools/core (x-acl-list)', () => {
  let host: OasHost;
  beforeAll(async () => {
    host = await startOasHost(standard);
  });
  afterAll(() => host.stop());

  const ask: AskList = async (target, authorization) => {
    const answer = await fetch(`${host.url}${target === 'list' ? '/orders' : '/orders/7'}`, { headers: authorization === undefined ? {} : { authorization } });
    const body = (await answer.json()) as Record<string, unknown>;
    // The controller answers more (see oas-server.mjs); what matters here is the plan it got.
    return { status: answer.status, body: answer.status === 200 ? { list: body.list } : body, challenge: answer.headers.get('www-authenticate') };
  };

  test('the controller gets the plan of the items; a plan of no item is the 403 of any deny and the controller does not run', async () => {
    const before = (await host.calls()).calls;
    await expectSamePlans(ask);
    const after = (await host.calls()).calls.slice(before.length);
    // Two callers allowed twice each, and the guest's item request answered before its controller too.
    expect(after).toEqual(['listOrders', 'listOrders', 'listOrders', 'listOrders']);
  });

  test("an item's request carries no plan; the decision log names the plan entrypoint for the list", async () => {
    const support = await bearer({ role: 'support' });
    const item = await fetch(`${host.url}/orders/7`, { headers: { authorization: support } });
    expect(await item.json()).not.toHaveProperty('list');
    await fetch(`${host.url}/orders`, { headers: { authorization: support } });
    const events = (await host.calls()).events.slice(-2);
    expect(events.map((event) => [event.path, event.operation, (event.result as { list?: unknown }).list])).toEqual([
      ['svcgate/authz/decision', 'GET /orders/{orderId}', undefined],
      ['svcgate/authz/plan', 'GET /orders', { kind: 'all', anyOf: [], attributes: ['*'] }],
    ]);
  });
});

test('a caller an API key let in finds a plan of no item, as its filter keeps nothing', async () => {
  const document = load(readFileSync(LIST_OPENAPI, 'utf8')) as { components: { securitySchemes: Record<string, unknown> }; security: unknown };
  document.components.securitySchemes.apiKey = { type: 'apiKey', in: 'header', name: 'x-api-key' };
  document.security = [{ bearerAuth: [] }, { apiKey: [] }];
  const dir = mkdtempSync(join(tmpdir(), 'svcgate-oas-list-'));
  writeFileSync(join(dir, 'openapi.yaml'), dump(document));
  const host = await startOasHost({ ...standard, openapi: join(dir, 'openapi.yaml'), apiKeys: { apiKey: ['k'] } });
  try {
    const answer = await fetch(`${host.url}/orders`, { headers: { 'x-api-key': 'k' } });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ list: { kind: 'none', anyOf: [], attributes: [] }, visible: {} });
    const [event] = (await host.calls()).events.slice(-1);
    expect([event!.path, (event!.result as { list?: unknown }).list]).toEqual(['svcgate/authz/plan', { kind: 'none', anyOf: [], attributes: [] }]);
  } finally {
    host.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('checkOwnership with a list operation stops the start with a ConfigError naming the list and the fix', async () => {
  for (const setup of [{ ...standard, checkOwnership: 'even' }, { ...standard, acl: undefined, bundleUrl: 'http://127.0.0.1:9/bundle.tar.gz', checkOwnership: 'even' }] as OasSetup[]) {
    const { code, output } = await failedStart(setup);
    expect(code).not.toBe(0);
    expect(output).toContain('<BearerJWT config> at $.checkOwnership: checkOwnership decides ownership one item at a time, so no plan can say which items of the list operation GET /orders (listOrders) the caller owns');
    expect(output).toContain('drop the x-acl-list of GET /orders and filter its rows in the handler');
  }
});
