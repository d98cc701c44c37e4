import { EventEmitter } from 'node:events';
import { runInNewContext } from 'node:vm';
import request from 'supertest';
import { z } from 'zod';
import { bearerJwt } from '../../src/auth';
import { svcAcl, SvcApi, SvcContainer, type Interceptor, type ServiceClass } from '../../src/svc';
import { configErrorOf } from '../helpers/config-error-of';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// Review of issue 27, section 5: what SvcApi reads from a service's classes. `static internal` and
// `static schemas` of every class in the chain count (a subclass's own list replaced its parent's,
// and resetAll was a route again); without `static` they are a ConfigError (they were ignored);
// methods named like members of Object.prototype are ordinary routes (openapi() threw and the
// route answered 500); and the members of another realm's Object.prototype are no routes (under
// vm or jest, toString and hasOwnProperty of a class made there were routes).

const pass: Interceptor = (_req, _res, next) => next();
const paths = (api: SvcApi) => Object.keys(api.openapi().paths ?? {});
const apiOf = (...classes: ServiceClass[]) => new SvcApi().from(classes.reduce((container, Class) => container.andLocal(Class), new SvcContainer()));

describe('static internal and schemas count for every class of the chain', () => {
  class Base {
    static readonly internal: readonly string[] = ['resetAll'];
    static readonly schemas: Record<string, z.ZodType> = { createUser: z.object({ name: z.string() }).strict() };
    resetAll() {
      return 'reset';
    }
    createUser({ name }: { name: string }) {
      return { name };
    }
  }
  class UserService extends Base {
    static override readonly internal = ['audit'];
    static override readonly schemas = { getUser: z.object({ id: z.string().regex(/^\d+$/) }) };
    audit() {
      return 'audited';
    }
    getUser({ id }: { id: string }) {
      return { id };
    }
  }

  test("a subclass's own internal adds to its parent's: neither method is a route", async () => {
    const api = apiOf(UserService);
    const { url, close } = await listen(api.app);
    const answers = [
      (await request(url).post('/api/user-service/reset-all').send({})).status,
      (await request(url).post('/api/user-service/audit').send({})).status,
      (await request(url).get('/api/user-service/get-user?id=1')).status,
    ];
    await close();
    expect(answers).toEqual([404, 404, 200]);
    expect(paths(api)).toEqual(['/api/user-service/get-user', '/api/user-service/create-user']);
  });

  test("a subclass's own schemas add to its parent's: the inherited method's argument is still checked", async () => {
    const api = apiOf(UserService);
    expect((await request(api.app).post('/api/user-service/create-user').send({ name: 7 })).status).toBe(400);
    expect((await request(api.app).post('/api/user-service/create-user').send({ name: 'ada', role: 'admin' })).status).toBe(400);
    expect(await request(api.app).post('/api/user-service/create-user').send({ name: 'ada' })).toMatchObject({ status: 200, body: { name: 'ada' } });
    expect((await request(api.app).get('/api/user-service/get-user?id=x')).status).toBe(400);
  });

  test('the nearest class decides a method named in both: its schema is the one used', async () => {
    class Relaxed extends Base {
      static override readonly schemas = { createUser: z.object({ name: z.coerce.string() }) };
    }
    expect(await request(apiOf(Relaxed).app).post('/api/relaxed/create-user').send({ name: 7 })).toMatchObject({ status: 200, body: { name: '7' } });
  });

  test('an interceptor naming an inherited internal method is told which class lists it', () => {
    expect(() => apiOf(UserService).intercept({ userService: { resetAll: pass } }).app).toThrow('which is no route (resetAll is listed in Base.internal)');
  });

  test("each class's list names its own methods: a parent listing a method only its subclass has is a ConfigError at the parent", () => {
    class Parent {
      static readonly internal: readonly string[] = ['audit'];
      getOne() {}
    }
    class Child extends Parent {
      audit() {}
    }
    expect(configErrorOf(() => apiOf(Child).app)).toMatchObject({ file: '<class Parent>', path: '$.internal[0]' });
  });

  test('internal or schemas written without static is a ConfigError, not ignored', () => {
    class FieldInternal {
      readonly internal = ['resetAll'];
      resetAll() {}
    }
    class FieldSchemas {
      readonly schemas = { createUser: z.object({ name: z.string() }) };
      createUser() {}
    }
    class PrototypeInternal {
      get internal() {
        return ['resetAll'];
      }
      resetAll() {}
    }
    expect(configErrorOf(() => apiOf(FieldInternal).app)).toMatchObject({ file: '<class FieldInternal>', path: '$.internal', problem: 'internal is a field of each instance, not static, so SvcApi does not read it' });
    expect(configErrorOf(() => apiOf(FieldSchemas).app)).toMatchObject({ file: '<class FieldSchemas>', path: '$.schemas', problem: 'schemas is a field of each instance, not static, so SvcApi does not read it' });
    expect(configErrorOf(() => apiOf(PrototypeInternal).app)).toMatchObject({ path: '$.internal', problem: 'internal is a property of its prototype, not static, so SvcApi does not read it' });
  });

  test('a field named schemas that holds no zod schemas, and a method named internal, are the service own business', async () => {
    class Catalog {
      readonly schemas = ['public', 'archive'];
      listSchemas() {
        return this.schemas;
      }
      internal() {
        return 'a route like any other';
      }
    }
    const api = apiOf(Catalog);
    expect((await request(api.app).get('/api/catalog/list-schemas')).body).toEqual(['public', 'archive']);
    expect((await request(api.app).post('/api/catalog/internal').send({})).body).toBe('a route like any other');
  });
});

test("inherited means from a library's class too: EventEmitter's methods are routes until internal lists them", async () => {
  class Notifier extends EventEmitter {
    getCount() {
      return this.listenerCount('sent');
    }
  }
  class QuietNotifier extends Notifier {
    static readonly internal = ['emit', 'on', 'removeAllListeners'];
  }
  const open = apiOf(Notifier);
  expect(paths(open)).toEqual(expect.arrayContaining(['/api/notifier/get-count', '/api/notifier/emit', '/api/notifier/remove-all-listeners']));
  const quiet = apiOf(QuietNotifier);
  expect((await request(quiet.app).post('/api/quiet-notifier/remove-all-listeners').send({})).status).toBe(404);
  expect(paths(quiet)).not.toContain('/api/quiet-notifier/emit');
});

describe('methods named like members of Object.prototype', () => {
  class StatusService {
    static readonly schemas = { getStatus: z.object({}).strict() };
    toString() {
      return 'status service';
    }
    valueOf() {
      return 2;
    }
    hasOwnProperty() {
      return 'own';
    }
    getStatus() {
      return 'ok';
    }
  }

  test('are routes described without a schema, answered by the method', async () => {
    const api = apiOf(StatusService);
    expect(paths(api)).toEqual(['/api/status-service/to-string', '/api/status-service/value-of', '/api/status-service/has-own-property', '/api/status-service/get-status']);
    const { url, close } = await listen(api.app);
    const answers = [
      await request(url).post('/api/status-service/to-string').send({ any: 'argument' }),
      await request(url).post('/api/status-service/value-of').send({}),
      await request(url).post('/api/status-service/has-own-property').send({}),
    ];
    await close();
    expect(answers.map(({ status, body }) => [status, body])).toEqual([
      [200, 'status service'],
      [200, 2],
      [200, 'own'],
    ]);
  });

  test('svcAcl compiles and guards them', async () => {
    const acl = { anonymous: { '/api/status-service/get-status': { 'read:any': ['*'] } }, admin: { '/api/status-service/to-string': { 'create:any': ['*'] } } };
    const api = apiOf(StatusService).interceptAll(svcAcl({ handler: bearerJwt({ ...HS256, audience: false }), acl }));
    expect((await request(api.app).post('/api/status-service/to-string').send({})).status).toBe(401);
    expect((await request(api.app).post('/api/status-service/to-string').set('Authorization', `Bearer ${await token({ role: 'admin' })}`).send({})).body).toBe('status service');
    expect((await request(api.app).get('/api/status-service/get-status')).body).toBe('ok');
  });
});

describe('a class made in another realm (node:vm)', () => {
  const realm = <T>(source: string): T => runInNewContext(source) as T;

  test("its realm's Object.prototype members are no routes; its own and inherited methods are", async () => {
    const UserService = realm<ServiceClass>(`
      class Base { listUsers() { return [{ id: 1 }]; } }
      (class UserService extends Base { getUser({ id }) { return { id }; } })`);
    const api = apiOf(UserService);
    expect(paths(api)).toEqual(['/api/user-service/get-user', '/api/user-service/list-users']);
    const { url, close } = await listen(api.app);
    const answers = [
      (await request(url).get('/api/user-service/get-user?id=7')).body,
      (await request(url).get('/api/user-service/list-users')).body,
      (await request(url).post('/api/user-service/to-string').send({})).status,
      (await request(url).post('/api/user-service/has-own-property').send({})).status,
      (await request(url).post('/api/user-service/property-is-enumerable').send({})).status,
    ];
    await close();
    expect(answers).toEqual([{ id: '7' }, [{ id: 1 }], 404, 404, 404]);
  });

  test('an interceptor class made there intercepts with its own methods only', async () => {
    class UserService {
      getUser() {
        return { id: 1 };
      }
    }
    const Interceptors = realm<new () => object>(`(class { getUser(req, res, next) { res.status(203); next(); } })`);
    const api = apiOf(UserService).interceptAfter({ userService: Interceptors });
    expect((await request(api.app).get('/api/user-service/get-user')).status).toBe(203);
  });
});
