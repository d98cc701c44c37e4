import request from 'supertest';
import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer, type Interceptor } from '../../src/svc';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// Issue 27, section 5 (SPEC 9.6): a service can be registered for injection only
// (`{ routes: false }`), and a class can name methods that are not routes (`static internal`).

class AuditService {
  readonly entries: string[] = [];
  record(entry: string) {
    this.entries.push(entry);
    return this.entries.length;
  }
  listEntries() {
    return this.entries;
  }
}
class UserService {
  static readonly internal = ['resetAll'];
  constructor(private readonly services: { auditService: AuditService; maintenanceService: MaintenanceService }) {}
  createUser({ name }: { name: string }) {
    return { name, audit: this.services.auditService.record(`created ${name}`) };
  }
  resetAll() {
    return { reset: this.services.auditService.record('reset') };
  }
}
/** Calls the internal method of another service, as a route of its own. */
class MaintenanceService {
  constructor(private readonly services: { userService: UserService }) {}
  createReset() {
    return this.services.userService.resetAll();
  }
}

// The register callback's result keeps AuditService in its type: UserService's constructor needs it.
const container = (register: (container: SvcContainer) => SvcContainer<object, AuditService> = (c) => c.ofLocal(AuditService, { routes: false })) =>
  register(new SvcContainer()).andLocal(UserService).andLocal(MaintenanceService);
const pass: Interceptor = (_req, _res, next) => next();

test('a service registered with routes: false is injected and used, but none of its methods is a route', async () => {
  const api = new SvcApi().from(container());
  const { url, close } = await listen(api.app);
  expect((await request(url).post('/api/user-service/create-user').send({ name: 'ada' })).body).toEqual({ name: 'ada', audit: 1 });
  const listed = await request(url).get('/api/audit-service/list-entries');
  expect(listed.status).toBe(404);
  expect((await request(url).post('/api/audit-service/record').send({})).status).toBe(404);
  expect(Object.keys(api.openapi().paths ?? {}).filter((path) => path.startsWith('/api/audit-service/'))).toEqual([]);
  await close();
});

test('andLocal takes the same option, and so does a map of classes', async () => {
  for (const register of [(c: SvcContainer): SvcContainer<object, AuditService> => c.andLocal(AuditService, { routes: false }), (c: SvcContainer) => c.ofLocal({ auditService: AuditService }, { routes: false })]) {
    const api = new SvcApi().from(container(register));
    expect((await request(api.app).get('/api/audit-service/list-entries')).status).toBe(404);
    expect((await request(api.app).post('/api/user-service/create-user').send({ name: 'ada' })).status).toBe(200);
  }
});

test('a method listed in internal is no route, but other services call it', async () => {
  const api = new SvcApi().from(container());
  expect((await request(api.app).post('/api/user-service/reset-all').send({})).status).toBe(404);
  expect(await request(api.app).post('/api/maintenance-service/create-reset').send({})).toMatchObject({ status: 200, body: { reset: 1 } });
  expect(Object.keys(api.openapi().paths ?? {})).toEqual(['/api/user-service/create-user', '/api/maintenance-service/create-reset']);
});

test('svcAcl compiles without the unrouted names: an ACL granting one is refused, as for any path that is no route', async () => {
  const guarded = (acl: unknown) => new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), acl })).from(container());
  expect(() => guarded({ admin: { '/api/user-service/reset-all': { 'create:any': ['*'] } } }).app).toThrow(ConfigError);
  const api = guarded({ admin: { '/api/maintenance-service/create-reset': { 'create:any': ['*'] } } });
  const admin = `Bearer ${await token({ role: 'admin' })}`;
  expect((await request(api.app).post('/api/maintenance-service/create-reset').set('Authorization', admin).send({})).status).toBe(200);
});

describe('fails closed', () => {
  const build = (Class: new (services: never) => object) => () => new SvcApi().from(new SvcContainer().ofLocal(Class)).app;

  test('an internal name that matches no public method is a ConfigError with the closest method', () => {
    class Typo {
      static readonly internal = ['resetAl'];
      resetAll() {}
    }
    let error: unknown;
    try {
      build(Typo)();
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ file: '<class Typo>', path: '$.internal[0]', problem: 'resetAl is no public method of Typo, so listing it keeps no route out (did you mean resetAll?)' });
  });

  test('internal must be a list of names; a helper (_x) or a getter is no public method', () => {
    class NotAList {
      static readonly internal = 'resetAll';
      resetAll() {}
    }
    class Helper {
      static readonly internal = ['_helper'];
      _helper() {}
      getOne() {}
    }
    expect(build(NotAList)).toThrow('<class NotAList> at $.internal: internal must be a list of method names');
    expect(build(Helper)).toThrow('_helper is no public method of Helper');
  });

  test('the registration options are checked', () => {
    expect(() => new SvcContainer().ofLocal(AuditService, { routes: 'no' } as never)).toThrow('<SvcContainer.ofLocal options> at $.routes: routes must be true or false');
    expect(() => new SvcContainer().andLocal(AuditService, { route: false } as never)).toThrow(ConfigError);
  });

  test('an interceptor map naming a routes: false service or an internal method is an error that says why', () => {
    const api = () => new SvcApi().from(container());
    expect(() => api().intercept({ auditService: { record: pass } }).app).toThrow('SvcApi: the interceptor map names auditService, which has no routes to intercept: auditService is registered with routes: false');
    expect(() => api().interceptAfter({ userService: { resetAll: pass } }).app).toThrow('SvcApi: the interceptor map names userService.resetAll, which is no route (resetAll is listed in UserService.internal)');
    class Guard {
      createUser: Interceptor = pass;
      resetAll(...args: Parameters<Interceptor>) {
        return pass(...args);
      }
    }
    expect(() => api().intercept({ userService: Guard }).app).toThrow('interceptor class Guard has a method resetAll, but userService has no route resetAll (resetAll is listed in UserService.internal)');
  });
});
