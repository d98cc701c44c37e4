import { inspect } from 'node:util';
import request from 'supertest';
import { SvcApi, SvcContainer, type Interceptor, type InterceptorMap } from '../../src/svc';

// SPEC 7.7 (configuration fails closed) and 7.8 (errors are answers), issue 10 findings 9 and 10.

class OrderService {
  listOrders() {
    return ['o1'];
  }
  getOrder() {
    return 'o1';
  }
}

/** A guard that answers 401 itself: a request that reaches the handler was not guarded. */
function deny(_req: unknown, res: { status: (code: number) => { json: (body: unknown) => void } }) {
  res.status(401).json({ error: 'Unauthorized', message: 'guarded' });
}

const orders = () => new SvcContainer().ofLocal(OrderService);
type Register = 'intercept' | 'interceptAfter';
const build = (register: Register, map: InterceptorMap) => () => new SvcApi()[register](map).from(orders()).app;

describe('interceptor classes fail closed (SPEC 7.7)', () => {
  class Guard {
    listOrders(...args: Parameters<typeof deny>) {
      deny(...args);
    }
  }
  class MisspelledGuard extends Guard {
    listOrder(...args: Parameters<typeof deny>) {
      deny(...args);
    }
  }

  const forms: Array<[string, (Class: new () => object) => InterceptorMap]> = [
    ['{ <instance>: Class }', (Class) => ({ orderService: Class })],
    ['{ <instance>: { <method>: Class } }', (Class) => ({ orderService: { listOrders: Class } })],
  ];

  describe.each(['intercept', 'interceptAfter'] as const)('%s', (register) => {
    test.each(forms)('%s: one misspelled method among correct ones fails the build, naming the class, the name, the service and the closest method', (_form, map) => {
      expect(build(register, map(MisspelledGuard))).toThrow(
        'SvcApi: interceptor class MisspelledGuard has a method listOrder, but orderService has no route listOrder (did you mean listOrders?); ' +
          'rename it to the orderService method it intercepts, or start its name with _ if it is a helper',
      );
    });

    test.each(forms)('%s: the same class spelled right builds and guards the route', async (_form, map) => {
      const app = build(register, map(Guard))();
      expect(await request(app).get('/api/order-service/list-orders')).toMatchObject({ status: 401, body: { message: 'guarded' } });
    });
  });

  test('a class written inline in the map is named by its methods, not by the key it takes its name from', () => {
    expect(
      build('intercept', {
        orderService: class {
          listOrder() {}
          getOrder() {}
        },
      }),
    ).toThrow('SvcApi: interceptor class written inline for orderService (its methods: listOrder, getOrder) has a method listOrder, but orderService has no route listOrder (did you mean listOrders?)');
  });

  test('an inherited misspelled method counts too', () => {
    class Base {
      getOrders() {}
    }
    class Derived extends Base {
      getOrder() {}
    }
    expect(build('intercept', { orderService: Derived })).toThrow('interceptor class Derived has a method getOrders, but orderService has no route getOrders (did you mean getOrder?)');
  });

  test('a misspelled arrow-function field counts as a method', () => {
    class FieldGuard {
      listOrder: Interceptor = (_req, _res, next) => next();
    }
    expect(build('intercept', { orderService: FieldGuard })).toThrow('has a method listOrder, but orderService has no route listOrder (did you mean listOrders?)');
  });

  test('a getter or a field named like a service method is an error: it would look like an interceptor and never run', () => {
    class GetterGuard {
      get listOrders() {
        return 'not a function';
      }
      getOrder(...args: Parameters<typeof deny>) {
        deny(...args);
      }
    }
    expect(build('intercept', { orderService: GetterGuard })).toThrow('SvcApi: GetterGuard.listOrders is named like a method of orderService but is not a method; write it as a method');
  });

  test('_helpers are allowed: like _methods of services, they can never be routes, so they intercept nothing', async () => {
    class HelpedGuard {
      listOrders(...args: Parameters<typeof deny>) {
        this._audit();
        deny(...args);
      }
      _audit() {
        audited.push('listOrders');
      }
    }
    const audited: string[] = [];
    const app = new SvcApi().intercept({ orderService: HelpedGuard }).from(orders()).app;
    expect((await request(app).get('/api/order-service/list-orders')).status).toBe(401);
    expect((await request(app).get('/api/order-service/get-order')).status).toBe(200);
    expect(audited).toEqual(['listOrders']);
  });

  test('{ <instance>: { <method>: Class } }: the class must have that method', () => {
    class OtherGuard {
      getOrder() {}
    }
    expect(build('intercept', { orderService: { listOrders: OtherGuard } })).toThrow(
      'SvcApi: interceptor class OtherGuard has no method listOrders to intercept orderService.listOrders (did you mean getOrder?); add listOrders to the class',
    );
  });

  test('a class with no interceptor method at all is an error', () => {
    class OnlyHelpers {
      _helper() {}
    }
    expect(build('interceptAfter', { orderService: OnlyHelpers })).toThrow('SvcApi: interceptor class OnlyHelpers has no method to intercept orderService with');
  });
});

describe('interceptor maps fail closed (SPEC 7.7)', () => {
  const pass: Interceptor = (_req, _res, next) => next();

  test.each(['intercept', 'interceptAfter'] as const)('%s: a misspelled method or service names the closest one', (register) => {
    expect(build(register, { orderService: { listOrders: pass, listOrder: pass } })).toThrow('SvcApi: the interceptor map names orderService.listOrder, which is no route (did you mean listOrders?)');
    expect(build(register, { orderServices: { listOrders: pass } })).toThrow('SvcApi: the interceptor map names orderServices, which is no service of the container (did you mean orderService?)');
  });

  test('a _name in a map is an error: a map entry is always meant to intercept a route', () => {
    expect(build('intercept', { orderService: { _listOrders: pass } })).toThrow('names orderService._listOrders, which is no route (did you mean listOrders?)');
  });

  test('a function that is not a class, for a whole service, is an error rather than intercepting nothing', () => {
    expect(build('intercept', { orderService: pass as never })).toThrow(
      'SvcApi: the interceptors of orderService must be a class or { <method>: fn or Class }, got a function that is not a class; for every route use interceptAll or interceptAllAfter',
    );
  });

  test('a Map is refused where a map object is expected: its entries are not properties and would intercept nothing', () => {
    const map = new Map([['orderService', { listOrders: deny }]]);
    expect(() => new SvcApi().intercept(map as never)).toThrow(new TypeError('intercept: pass an object literal { <instance>: Class or { <method>: fn or Class } }'));
  });

  test('a method interceptor that is neither a function nor a class is an error', () => {
    expect(build('interceptAfter', { orderService: { listOrders: 'deny' as never } })).toThrow('SvcApi: the interceptor of orderService.listOrders must be a function or a class, got "deny"');
  });
});

describe('errors are answers (SPEC 7.8)', () => {
  class ValidationError extends Error {
    override name = 'ValidationError';
  }
  const INTERNAL = { error: 'InternalServerError', message: 'Internal Server Error' };

  /** Values that are not Errors; Express would read the first seven as "no error" or "skip". */
  const values: Array<[string, unknown]> = [
    ['null', null],
    ['undefined', undefined],
    ['0', 0],
    ["''", ''],
    ['false', false],
    ["'route'", 'route'],
    ["'router'", 'router'],
    ["'a string'", 'a string'],
    ['42', 42],
    ['NaN', Number.NaN],
    ['a plain object', { code: 7 }],
    ['an object with no prototype', Object.create(null)],
    ['an object with an unmapped name', { name: 'Other', message: 'secret detail' }],
    ['a symbol', Symbol('thrown')],
  ];

  /** Where the value is thrown from; `where` is how the log message names that place. */
  const positions: Array<[string, string, (value: unknown, ran: string[]) => SvcApi]> = [
    ['a sync method', 'service.work threw', (value, ran) => apiWith(ran, () => fail(value))],
    ['an async method', 'service.work rejected with', (value, ran) => apiWith(ran, async () => fail(value))],
    ['a sync before-interceptor', 'interceptAll #1 threw', (value, ran) => apiWith(ran).interceptAll(() => fail(value))],
    ['an async before-interceptor', 'interceptAll #1 rejected with', (value, ran) => apiWith(ran).interceptAll(async () => fail(value))],
    ['a sync after-interceptor', 'interceptAllAfter #1 threw', (value, ran) => apiWith(ran).interceptAllAfter(() => fail(value))],
    ['an async after-interceptor', 'interceptAfter service.work rejected with', (value, ran) => apiWith(ran).interceptAfter({ service: { work: async () => fail(value) } })],
  ];

  function fail(value: unknown): never {
    throw value;
  }

  /** A service whose one method records that it ran and then does what `work` does (by default, answers 200). */
  function apiWith(ran: string[], work: () => unknown = () => 'done') {
    class Service {
      work() {
        ran.push('handler');
        return work();
      }
    }
    return new SvcApi({ logError: (message, thrown) => logged.push([message, thrown]) }).withErrors({ ValidationError: 422 }).from(new SvcContainer().ofLocal(Service));
  }

  let logged: Array<[string, unknown]>;
  beforeEach(() => {
    logged = [];
  });

  const cases = positions.flatMap(([position, where, make]) => values.map(([shown, value]) => [position, shown, where, make, value] as const));

  test.each(cases)('%s that throws %s answers 500 and logs what was thrown', async (position, _shown, where, make, value) => {
    const ran: string[] = [];
    const response = await request(make(value, ran).app).post('/api/service/work');
    expect(response.status).toBe(500);
    expect(response.body).toEqual(INTERNAL);
    expect(response.text).not.toContain('secret detail');
    expect(logged).toHaveLength(1);
    expect(logged[0]![0]).toBe(`${where} ${inspect(value)}, which is not an Error`);
    expect(Object.is(logged[0]![1], value)).toBe(true);
    // A failing before-interceptor is a guard saying no: the handler must not run.
    expect(ran).toEqual(position.includes('before') ? [] : ['handler']);
  });

  test.each(positions)('%s that throws a plain object whose name is mapped answers with the mapped status', async (_position, _where, make) => {
    const response = await request(make({ name: 'ValidationError', message: 'bad order' }, []).app).post('/api/service/work');
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ error: 'ValidationError', message: 'bad order' });
    expect(logged).toEqual([]);
  });

  describe('the next() an interceptor calls', () => {
    const guardCalling =
      (...args: unknown[]): Interceptor =>
      (_req, _res, next) =>
        (next as (...values: unknown[]) => void)(...args);

    test.each([
      ['next()', []],
      ['next(undefined)', [undefined]],
      ['next(null)', [null]],
    ])('%s goes on, as in Express and Node callbacks', async (_call, args) => {
      const ran: string[] = [];
      const response = await request(apiWith(ran).interceptAll(guardCalling(...args)).app).post('/api/service/work');
      expect(response).toMatchObject({ status: 200, body: 'done' });
      expect(ran).toEqual(['handler']);
    });

    test.each(values.filter(([, value]) => value !== undefined && value !== null))('next(%s) is an error: 500, logged, and the handler does not run', async (_shown, value) => {
      const ran: string[] = [];
      const response = await request(apiWith(ran).interceptAll(guardCalling(value)).app).post('/api/service/work');
      expect(response.status).toBe(500);
      expect(response.body).toEqual(INTERNAL);
      expect(logged).toEqual([[`interceptAll #1 called next with ${inspect(value)}, which is not an Error`, value]]);
      expect(ran).toEqual([]);
    });

    test('next() with an Error subclass is still mapped by name', async () => {
      const response = await request(apiWith([]).interceptAll(guardCalling(new ValidationError('bad'))).app).post('/api/service/work');
      expect(response).toMatchObject({ status: 422, body: { error: 'ValidationError', message: 'bad' } });
    });
  });
});
