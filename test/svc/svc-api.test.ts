import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { z } from 'zod';
import { SvcApi, SvcContainer, type Interceptor } from '../../src/svc';

class ValidationError extends Error {
  override name = 'ValidationError';
}
class NotFoundError extends Error {
  override name = 'NotFoundError';
}

class BaseService {
  ping() {
    return 'pong';
  }
  getInherited() {
    return 'from the base class';
  }
}

class UserService extends BaseService {
  static schemas = { findUsers: z.object({ limit: z.coerce.number().int().max(50) }) };
  constructor(readonly services: Record<string, object>) {
    super();
  }
  createUser(user: { name?: string }) {
    if (!user.name) throw new ValidationError('name is required');
    return { id: 1, ...user };
  }
  getUser({ id }: { id?: string }) {
    return { id, query: true };
  }
  findUsers({ limit }: { limit: number }) {
    return { limit, type: typeof limit };
  }
  readProfile() {
    return 'read';
  }
  fetchAll() {
    return 'fetch';
  }
  listUsers() {
    return 'list';
  }
  addUser(body: unknown) {
    return body;
  }
  postMessage() {
    return 'post';
  }
  updateUser(body: unknown) {
    return body;
  }
  putUser() {
    return 'put';
  }
  patchUser() {
    return 'patch';
  }
  deleteUser(query: unknown) {
    return query;
  }
  removeUser() {
    return 'remove';
  }
  address() {
    return 'address is POST';
  }
  getter() {
    return 'getter is POST';
  }
  forget() {
    return undefined;
  }
  async failLater() {
    throw new NotFoundError('no such user');
  }
  async getLater() {
    return { later: true };
  }
  getThenable() {
    return { then: (resolve: (value: unknown) => void) => resolve({ thenable: true }) };
  }
  explode() {
    throw new Error('database password is hunter2');
  }
  _hidden() {
    return 'never routed';
  }
  get computed() {
    return 'a getter is not a method';
  }
}

class HTTPService {
  getStatus() {
    return { ok: true };
  }
}

function api() {
  return new SvcApi({ logError: () => undefined }).withErrors({ ValidationError: 400, NotFoundError: 404 }).from(new SvcContainer().ofLocal(UserService).andLocal(HTTPService));
}

let server: Server;
let url: string;
beforeAll(async () => {
  server = await api().listen(0);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('routes', () => {
  test('listen binds 127.0.0.1 by default', () => {
    expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
  });

  test('/api/<service>/<method> in kebab case by words: HTTPService -> http-service', async () => {
    expect((await request(url).get('/api/http-service/get-status')).body).toEqual({ ok: true });
  });

  test('inherited methods are routes too', async () => {
    expect((await request(url).get('/api/user-service/get-inherited')).body).toBe('from the base class');
    expect((await request(url).post('/api/user-service/ping')).body).toBe('pong');
  });

  test('_private methods, getters and the constructor are not routed', async () => {
    for (const path of ['/api/user-service/-hidden', '/api/user-service/hidden', '/api/user-service/computed', '/api/user-service/constructor']) {
      expect((await request(url).post(path)).status).toBe(404);
    }
  });

  test.each([
    ['get', 'get-user'],
    ['get', 'read-profile'],
    ['get', 'fetch-all'],
    ['get', 'find-users?limit=5'],
    ['get', 'list-users'],
    ['post', 'create-user'],
    ['post', 'add-user'],
    ['post', 'post-message'],
    ['put', 'update-user'],
    ['put', 'put-user'],
    ['patch', 'patch-user'],
    ['delete', 'delete-user'],
    ['delete', 'remove-user'],
    ['post', 'address'],
    ['post', 'getter'],
  ] as const)('%s /api/user-service/%s', async (method, path) => {
    const response = await request(url)[method](`/api/user-service/${path}`).send(method === 'post' && path === 'create-user' ? { name: 'a' } : undefined);
    expect(response.status).toBe(200);
  });

  test('a wrong method is 405 with Allow', async () => {
    const response = await request(url).post('/api/user-service/get-user');
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD');
    expect(response.body).toEqual({ error: 'MethodNotAllowed', message: '/api/user-service/get-user answers GET, HEAD' });
    expect((await request(url).get('/api/user-service/address')).headers.allow).toBe('POST');
  });

  test('an unknown route is 404 JSON', async () => {
    const response = await request(url).get('/api/nothing/here');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'NotFound', message: 'no route GET /api/nothing/here' });
  });
});

describe('arguments and answers', () => {
  test('POST/PUT/PATCH take the JSON body, GET/DELETE the query', async () => {
    expect((await request(url).put('/api/user-service/update-user').send({ a: 1 })).body).toEqual({ a: 1 });
    expect((await request(url).get('/api/user-service/get-user?id=7')).body).toEqual({ id: '7', query: true });
    expect((await request(url).delete('/api/user-service/delete-user?id=7')).body).toEqual({ id: '7' });
  });

  test('a declared zod schema parses the argument', async () => {
    expect((await request(url).get('/api/user-service/find-users?limit=5')).body).toEqual({ limit: 5, type: 'number' });
  });

  test('an argument that fails the schema is 400 with the issues', async () => {
    const response = await request(url).get('/api/user-service/find-users?limit=500');
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('ValidationError');
    expect(response.body.message).toMatch(/^limit: /);
    expect(response.body.issues[0].path).toEqual(['limit']);
  });

  test('undefined is 204 with no body', async () => {
    const response = await request(url).post('/api/user-service/forget');
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
  });

  test('malformed JSON is 400 JSON', async () => {
    const response = await request(url).post('/api/user-service/create-user').set('Content-Type', 'application/json').send('{"name": ');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'BadRequest', message: 'the request body is not valid JSON' });
  });

  test('a body over the limit is 413 JSON', async () => {
    const response = await request(url).post('/api/user-service/add-user').send({ pad: 'x'.repeat(200_000) });
    expect(response.status).toBe(413);
    expect(response.body.error).toBe('PayloadTooLarge');
  });
});

describe('errors', () => {
  test('a sync throw with a mapped name gets its status and {error, message}', async () => {
    const response = await request(url).post('/api/user-service/create-user').send({});
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'ValidationError', message: 'name is required' });
  });

  test('a promise, or any thenable, is awaited and its value sent', async () => {
    expect((await request(url).get('/api/user-service/get-later')).body).toEqual({ later: true });
    expect((await request(url).get('/api/user-service/get-thenable')).body).toEqual({ thenable: true });
  });

  test('a rejected promise is mapped the same way', async () => {
    const response = await request(url).post('/api/user-service/fail-later');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'NotFoundError', message: 'no such user' });
  });

  test('an unmapped error is 500 without the internal message, which is logged', async () => {
    const logged: string[] = [];
    const app = new SvcApi({ logError: (message) => logged.push(message) }).from(new SvcContainer().ofLocal(UserService)).app;
    const response = await request(app).post('/api/user-service/explode');
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ error: 'InternalServerError', message: 'Internal Server Error' });
    expect(response.text).not.toContain('hunter2');
    expect(logged).toEqual(['Error: database password is hunter2']);
  });

  test('without logError, an unmapped error is printed with its stack', async () => {
    const printed = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const app = new SvcApi().from(new SvcContainer().ofLocal(UserService)).app;
      expect((await request(app).post('/api/user-service/explode')).status).toBe(500);
      expect(printed).toHaveBeenCalledTimes(1);
      expect(String(printed.mock.calls[0]![0])).toMatch(/^svcgate: Error: database password is hunter2\n\s+at .*svc-api\.test\.ts/);
    } finally {
      printed.mockRestore();
    }
  });

  test('withErrors refuses statuses that are not 4xx or 5xx integers', () => {
    expect(() => new SvcApi().withErrors({ A: 200 })).toThrow(RangeError);
    expect(() => new SvcApi().withErrors({ A: 404.5 })).toThrow('withErrors: the status for A must be an integer from 400 to 599');
    expect(() => new SvcApi().withErrors({ NotFound: '404' as unknown as number })).toThrow('withErrors: the status for NotFound must be an integer from 400 to 599, got the string "404"; write 404 without quotes');
  });
});

describe('interceptors', () => {
  function recording(order: string[], name: string): Interceptor {
    return (_req, _res, next) => {
      order.push(name);
      next();
    };
  }

  test('order: global before, specific before, handler, specific after, global after', async () => {
    const order: string[] = [];
    class Service {
      work() {
        order.push('handler');
        return 'done';
      }
    }
    const app = new SvcApi()
      .interceptAll(recording(order, 'global before'))
      .intercept({ service: { work: recording(order, 'specific before') } })
      .interceptAllAfter(recording(order, 'global after'))
      .interceptAfter({ service: { work: recording(order, 'specific after') } })
      .from(new SvcContainer().ofLocal(Service)).app;
    expect((await request(app).post('/api/service/work')).body).toBe('done');
    expect(order).toEqual(['global before', 'specific before', 'handler', 'specific after', 'global after']);
  });

  test('a before-interceptor may answer itself (401) and the handler does not run', async () => {
    let ran = false;
    class Service {
      work() {
        ran = true;
      }
    }
    const guard: Interceptor = (req, res, next) => (req.headers.authorization ? next() : res.status(401).json({ error: 'Unauthorized', message: 'no token' }));
    const app = new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(Service)).app;
    expect(await request(app).post('/api/service/work')).toMatchObject({ status: 401, body: { error: 'Unauthorized', message: 'no token' } });
    expect(ran).toBe(false);
    expect((await request(app).post('/api/service/work').set('Authorization', 'x')).status).toBe(204);
    expect(ran).toBe(true);
  });

  test('an after-interceptor sets the status and replaces the body with res.body()', async () => {
    class AccountService {
      createAccount(body: { name: string }) {
        return { id: 9, ...body };
      }
    }
    const app = new SvcApi()
      .interceptAfter({
        accountService: {
          createAccount: (_req, res, next) => {
            res.status(201).body({ created: true });
            next();
          },
        },
      })
      .from(new SvcContainer().ofLocal(AccountService)).app;
    expect(await request(app).post('/api/account-service/create-account').send({ name: 'a' })).toMatchObject({ status: 201, body: { created: true } });
  });

  test('class interceptors: per method, and per service with methods named like the service methods', async () => {
    const order: string[] = [];
    class Service {
      one() {
        return 1;
      }
      two() {
        return 2;
      }
    }
    class OneInterceptor {
      one(_req: unknown, _res: unknown, next: () => void) {
        order.push('method class');
        next();
      }
    }
    class ServiceInterceptor {
      prefix = 'service class';
      two(_req: unknown, _res: unknown, next: () => void) {
        order.push(`${this.prefix} two`);
        next();
      }
    }
    const app = new SvcApi()
      .intercept({ service: { one: OneInterceptor } })
      .interceptAfter({ service: ServiceInterceptor })
      .from(new SvcContainer().ofLocal(Service)).app;
    await request(app).post('/api/service/one');
    await request(app).post('/api/service/two');
    expect(order).toEqual(['method class', 'service class two']);
  });

  test.each([
    ['a sync throw', (): Interceptor => () => {
      throw new ValidationError('bad');
    }],
    ['a rejected promise', (): Interceptor => async () => {
      throw new ValidationError('bad');
    }],
    ['next(err)', (): Interceptor => (_req, _res, next) => next(new ValidationError('bad'))],
    ['next(err) later', (): Interceptor => (_req, _res, next) => setTimeout(() => next(new ValidationError('bad')), 5)],
  ])('%s in an interceptor goes through the error map', async (_name, make) => {
    class Service {
      work() {
        return 'never';
      }
    }
    for (const position of ['before', 'after'] as const) {
      const svc = new SvcApi().withErrors({ ValidationError: 422 });
      const app = (position === 'before' ? svc.interceptAll(make()) : svc.interceptAllAfter(make())).from(new SvcContainer().ofLocal(Service)).app;
      expect(await request(app).post('/api/service/work')).toMatchObject({ status: 422, body: { error: 'ValidationError', message: 'bad' } });
    }
  });

  test('an async interceptor that neither answers nor calls next is an error, not a hang', async () => {
    class Service {
      work() {
        return 'never';
      }
    }
    const app = new SvcApi({ logError: () => undefined }).interceptAll(async () => undefined).from(new SvcContainer().ofLocal(Service)).app;
    expect((await request(app).post('/api/service/work')).status).toBe(500);
  });

  test('a sync interceptor that never calls next is answered 503 after timeoutMs', async () => {
    class Service {
      work() {
        return 'never';
      }
    }
    const app = new SvcApi({ timeoutMs: 50 }).interceptAll(() => undefined).from(new SvcContainer().ofLocal(Service)).app;
    expect(await request(app).post('/api/service/work')).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } });
  });

  test('the 503 backstop counts from the start of each request and leaves answered ones alone', async () => {
    class Service {
      async getLater({ ms }: { ms: string }) {
        await new Promise((resolve) => setTimeout(resolve, Number(ms)));
        return { waited: Number(ms) };
      }
    }
    const app = new SvcApi({ timeoutMs: 400 })
      .interceptAll((req, res, next) => (req.query.deny === 'yes' ? res.status(401).json({ error: 'Unauthorized' }) : next()))
      .from(new SvcContainer().ofLocal(Service)).app;
    const [quick, denied, slow] = await Promise.all([
      request(app).get('/api/service/get-later?ms=20'),
      request(app).get('/api/service/get-later?ms=0&deny=yes'),
      request(app).get('/api/service/get-later?ms=1000'),
    ]);
    expect(quick).toMatchObject({ status: 200, body: { waited: 20 } });
    expect(denied.status).toBe(401);
    expect(slow).toMatchObject({ status: 503, body: { error: 'ServiceUnavailable' } });
    // Later requests are timed from their own start, not from the first one's.
    expect(await request(app).get('/api/service/get-later?ms=150')).toMatchObject({ status: 200, body: { waited: 150 } });
  });

  test('a map naming an unknown service or method fails when the app is built', () => {
    class Service {
      work() {}
    }
    const container = () => new SvcContainer().ofLocal(Service);
    expect(() => new SvcApi().intercept({ nothing: { work: () => undefined } }).from(container()).app).toThrow('names nothing, which is no service');
    expect(() => new SvcApi().intercept({ service: { wrok: () => undefined } }).from(container()).app).toThrow('names service.wrok, which is no route');
    expect(() => new SvcApi().interceptAll('x' as never)).toThrow(TypeError);
  });
});

describe('listen and app', () => {
  test.each([1.5, Number.NaN, '80', undefined])('listen(%p) is a TypeError', (port) => {
    expect(() => api().listen(port as number)).toThrow(TypeError);
  });

  test.each([-1, 65536, 100000])('listen(%p) is a RangeError', (port) => {
    expect(() => api().listen(port)).toThrow(RangeError);
  });

  test('listen resolves to the listening server', async () => {
    const started = await api().listen(0);
    expect(started.listening).toBe(true);
    await new Promise((resolve) => started.close(resolve));
  });

  test('configuring after the app was built is an error, and changes nothing', async () => {
    const built = api();
    const { app } = built;
    expect(() => built.interceptAll(() => undefined)).toThrow('SvcApi: interceptAll() after the app was built; configure first');
    expect(() => built.withErrors({ Other: 400 })).toThrow('withErrors() after the app was built');
    expect((await request(app).get('/api/http-service/get-status')).status).toBe(200);
  });

  test.each(['express', 'express4'])('the app mounts under an existing %s app, res.body() included', async (hostPackage) => {
    const host = require(hostPackage)();
    const wrapped = api().interceptAllAfter((_req, res, next) => {
      res.body({ wrapped: res.locals.svc.body });
      next();
    });
    host.use('/v2', wrapped.app);
    expect((await request(host).get('/v2/api/http-service/get-status')).body).toEqual({ wrapped: { ok: true } });
  });
});

describe('openapi()', () => {
  const doc = api().openapi() as unknown as { openapi: string; paths: Record<string, Record<string, { operationId: string; parameters?: unknown[]; requestBody?: unknown }>> };

  test('is OpenAPI 3.1 with operationId <instance>.<method>', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/user-service/create-user']!.post!.operationId).toBe('userService.createUser');
    expect(doc.paths['/api/http-service/get-status']!.get!.operationId).toBe('httpService.getStatus');
  });

  test('a GET with a schema lists its query parameters; a POST has a JSON body', () => {
    expect(doc.paths['/api/user-service/find-users']!.get!.parameters).toEqual([{ name: 'limit', in: 'query', required: true, schema: expect.objectContaining({ type: 'integer', maximum: 50 }) }]);
    expect(doc.paths['/api/user-service/create-user']!.post!.requestBody).toEqual({ required: false, content: { 'application/json': { schema: { type: 'object' } } } });
  });
});
