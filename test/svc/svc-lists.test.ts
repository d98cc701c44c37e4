import { z } from 'zod';
import { bearerJwt } from '../../src/auth';
import { bundleConsumer } from '../../src/fleet';
import { compileAcl } from '../../src/policy';
import { svcAcl, svcAclOpenApi, SvcApi, SvcContainer, type SvcAclOptions, type SvcCallContext } from '../../src/svc';
import { configErrorOf } from '../helpers/config-error-of';
import { expectSamePlans, type AskList } from '../helpers/list-callers';
import { listen } from '../helpers/listen';
import { HS256 } from '../helpers/tokens';

const { seenThenChanged } = require('../helpers/seen-then-changed.cjs') as { seenThenChanged: (list: unknown) => unknown };

// A list method of a SvcApi service (static lists) gets the plan of its items in auth.list, decided by svcAcl with its item's grants and owners.

class OrderService {
  // Typed as a record, so that a subclass may declare lists of its own.
  static readonly lists: Record<string, string> = { listOrders: 'getOrder' };
  static schemas = { getOrder: z.object({ orderId: z.coerce.number().int() }) };
  getOrder({ orderId }: { orderId: number }) {
    return { orderId, internalNote: 'n' };
  }
  listOrders(_args: object, { auth }: SvcCallContext) {
    return auth?.list === undefined ? {} : { list: seenThenChanged(auth.list) };
  }
  createOrder() {
    return { created: true };
  }
}

const ACL = {
  anonymous: {},
  guest: {},
  customer: { '/api/order-service/get-order': { 'read:own': ['*', '!internalNote'] }, '/api/order-service/create-order': { 'create:any': ['*'] } },
  support: { '/api/order-service/get-order': { 'read:any': ['*'] } },
};
const OWNERS = { 'orderService.getOrder': { orderId: 'orders' } };
const handler = bearerJwt(HS256);

function api(service: new (...args: never[]) => object = OrderService, options: Partial<SvcAclOptions> = {}): SvcApi {
  return new SvcApi().interceptAll(svcAcl({ handler, acl: ACL, owners: OWNERS, ...options })).from(new SvcContainer().ofLocal(service as typeof OrderService));
}

test('the list method gets the plan of its items in auth.list; a plan of no item is the 403 of any deny', async () => {
  const { url, close } = await listen(api().app);
  const ask: AskList = async (target, authorization) => {
    const answer = await fetch(`${url}/api/order-service/${target === 'list' ? 'list-orders' : 'get-order?orderId=7'}`, { headers: authorization === undefined ? {} : { authorization } });
    return { status: answer.status, body: (await answer.json()) as object, challenge: answer.headers.get('www-authenticate') };
  };
  try {
    await expectSamePlans(ask, { resource: '/api/order-service/get-order', parameter: 'query parameter orderId of GET /api/order-service/get-order' });
  } finally {
    await close();
  }
});

test('static lists describes the list route with x-acl-list, in api.openapi() and in the document svcAclOpenApi gives a bundle', () => {
  const described = new SvcApi().from(new SvcContainer().ofLocal(OrderService));
  const list = { 'x-acl-list': { item: '/api/order-service/get-order' } };
  expect(described.openapi().paths!['/api/order-service/list-orders']!.get).toMatchObject(list);
  expect(described.openapi().paths!['/api/order-service/get-order']!.get).not.toHaveProperty('x-acl-list');
  expect(svcAclOpenApi(described, OWNERS).paths!['/api/order-service/list-orders']!.get).toMatchObject(list);
});

test('a subclass adds to the lists of the class it extends', () => {
  class ArchivedOrders extends OrderService {
    static override readonly lists = { listArchived: 'getOrder' };
    listArchived() {
      return [];
    }
  }
  const paths = new SvcApi().from(new SvcContainer().ofLocal(ArchivedOrders)).openapi().paths!;
  expect(paths['/api/archived-orders/list-orders']!.get).toMatchObject({ 'x-acl-list': { item: '/api/archived-orders/get-order' } });
  expect(paths['/api/archived-orders/list-archived']!.get).toMatchObject({ 'x-acl-list': { item: '/api/archived-orders/get-order' } });
});

describe('a list declaration that cannot work is a ConfigError when the app is built', () => {
  const withLists = (lists: unknown, statics: Record<string, unknown> = {}) => {
    const Service = class OrderService {
      getOrder() {
        return {};
      }
      listOrders() {
        return [];
      }
      ordersOf() {
        return [];
      }
      resetAll() {
        return 0;
      }
    };
    return Object.assign(Service, { lists }, statics);
  };
  const build = (service: new (...args: never[]) => object, options: Partial<SvcAclOptions> = {}) => () => api(service, options).app;

  test.each([
    ['a list method that is no route', { listOrdrs: 'getOrder' }, {}, '$.lists.listOrdrs', /listOrdrs is no route of orderService \(did you mean listOrders\?\)/],
    ['an item that is an internal method', { listOrders: 'resetAll' }, { internal: ['resetAll'] }, '$.lists.listOrders', /resetAll is no route of orderService/],
    ['a list method routed as POST', { ordersOf: 'getOrder' }, {}, '$.lists.ordersOf', /ordersOf is routed as POST, but a list method lists with GET/],
    ['an item routed as POST', { listOrders: 'ordersOf' }, {}, '$.lists.listOrders', /ordersOf is routed as POST, but a listed item is read with GET/],
    ['an item that is itself a list', { listOrders: 'getOrder', getOrder: 'listOrders' }, {}, '$.lists.listOrders', /getOrder, which is itself a list method/],
    ['lists that is no map of names', ['listOrders'], {}, '$.lists', /lists must map list method names to item method names/],
  ])('%s', (_name, lists, statics, path, problem) => {
    const error = configErrorOf(build(withLists(lists, statics)));
    expect({ file: error.file, path: error.path }).toEqual({ file: '<class OrderService>', path });
    expect(error.problem).toMatch(problem);
  });

  test('lists written without static', () => {
    class Fielded {
      readonly lists = { listOrders: 'getOrder' };
      getOrder() {
        return {};
      }
      listOrders() {
        return [];
      }
    }
    expect(configErrorOf(build(Fielded)).message).toMatch(/<class Fielded> at \$\.lists: lists is a field of each instance, not static/);
  });

  test("an owners entry on the list method: the list is judged by its item's owners", () => {
    const error = configErrorOf(build(OrderService, { owners: { ...OWNERS, 'orderService.listOrders': { customerId: 'sub' } } }));
    expect({ file: error.file, path: error.path }).toEqual({ file: '<svcAcl options>', path: '$.owners["orderService.listOrders"]' });
    expect(error.problem).toBe('orderService.listOrders is a list method (static lists), so the rows it returns are decided by the owners of the method it lists (/api/order-service/get-order), not by fields of its own');
    expect(error.fix).toBe("move the fields to the owners of the item method, or take listOrders out of its class's static lists");
  });

  test('an owned item field whose schema is an array: a row holds one value', () => {
    class ManyIds {
      static readonly lists = { listOrders: 'getOrder' };
      static schemas = { getOrder: z.object({ orderId: z.array(z.number()) }) };
      getOrder() {
        return {};
      }
      listOrders() {
        return [];
      }
    }
    const error = configErrorOf(() => new SvcApi().interceptAll(svcAcl({ handler, acl: { support: { '/api/many-ids/get-order': { 'read:any': ['*'] } } }, owners: { 'manyIds.getOrder': { orderId: 'orders' } } })).from(new SvcContainer().ofLocal(ManyIds)).app);
    expect({ file: error.file, path: error.path }).toEqual({ file: '<svcAcl options>', path: '$.owners["manyIds.getOrder"].orderId' });
    expect(error.problem).toBe('orderId of manyIds.getOrder is an array (its schema), but manyIds.listOrders lists its items, and a row holds one orderId');
    // The compiler refuses the same document on its own: a bundle built from svcAclOpenApi's document without owners checked here.
    const document = svcAclOpenApi(new SvcApi().from(new SvcContainer().ofLocal(ManyIds)));
    Object.assign(document.paths!['/api/many-ids/get-order']!.get!.parameters![0]!, { 'x-acl-binding': 'orders' });
    expect(configErrorOf(() => compileAcl({ openapi: document, acl: { support: { '/api/many-ids/get-order': { 'read:any': ['*'] } } }, scheme: 'bearerAuth' })).problem).toMatch(/owns its query parameter orderId of type array, which a row's column cannot hold/);
  });

  test("a read grant on the list route decides nothing: the ConfigError says it belongs to the item's route", () => {
    const acl = { ...ACL, support: { '/api/order-service/list-orders': { 'read:any': ['*'] } } };
    const error = configErrorOf(() => new SvcApi().interceptAll(svcAcl({ handler, acl, owners: OWNERS })).from(new SvcContainer().ofLocal(OrderService)).app);
    expect(error.message).toMatch(/read:any of support on \/api\/order-service\/list-orders decides nothing/);
    expect(error.fix).toBe('move the grant to /api/order-service/get-order');
  });

  test('checkOwnership with a list method names it and the fix, with an acl or a policy source', () => {
    const bundled = configErrorOf(() => new SvcApi().interceptAll(svcAcl({ handler, policy: bundleConsumer({ url: 'http://127.0.0.1:9/bundle.tar.gz' }), owners: OWNERS, checkOwnership: () => true })).from(new SvcContainer().ofLocal(OrderService)).app);
    expect(bundled.path).toBe('$.checkOwnership');
    const error = configErrorOf(build(OrderService, { checkOwnership: () => true }));
    expect({ file: error.file, path: error.path }).toEqual({ file: '<svcAcl options>', path: '$.checkOwnership' });
    expect(error.problem).toBe('checkOwnership decides ownership one item at a time, so no plan can say which items of the list operation GET /api/order-service/list-orders (orderService.listOrders) the caller owns (it lists GET /api/order-service/get-order)');
    expect(error.fix).toBe("name the item method's owned fields in owners, bound to token claims and drop checkOwnership; or keep checkOwnership, drop the static lists entry of GET /api/order-service/list-orders and filter its rows in the handler");
  });
});
