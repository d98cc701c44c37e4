import request from 'supertest';
import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer, type Interceptor } from '../../src/svc';
import { configErrorOf } from '../helpers/config-error-of';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// Review of issue 27, section 5: svcAcl given to interceptAllAfter or interceptAfter runs after
// the method, so an anonymous DELETE deleted the account and was then answered 401. svcAcl now
// knows where it was registered, and an after placement is a ConfigError when the app is built,
// before any request. Also: an owners entry naming a method that is no route says why, as the
// interceptor maps do.

const deleted: string[] = [];
class AccountService {
  static readonly internal = ['purgeAll'];
  deleteAccount({ id }: { id?: string }) {
    deleted.push(id ?? '?');
    return { deleted: id };
  }
  purgeAll() {
    deleted.length = 0;
  }
}
class AuditService {
  record() {}
}
const acl = { admin: { '/api/account-service/delete-account': { 'delete:any': ['*'] } } };
const guard = (options: Record<string, unknown> = {}): Interceptor => svcAcl({ handler: bearerJwt({ ...HS256, audience: false }), acl, ...options });
const api = () => new SvcApi().from(new SvcContainer().ofLocal(AccountService).andLocal(AuditService, { routes: false }));

beforeEach(() => {
  deleted.length = 0;
});

describe('svcAcl registered to run after the method', () => {
  test.each([
    ['interceptAllAfter', (acl: Interceptor) => api().interceptAllAfter(acl)],
    ['interceptAfter', (acl: Interceptor) => api().interceptAfter({ accountService: { deleteAccount: acl } })],
    ['interceptAll and interceptAllAfter both', (acl: Interceptor) => api().interceptAll(acl).interceptAllAfter(acl)],
  ])('%s: a ConfigError when the app is built, and no method runs', (_name, register) => {
    const configured = register(guard());
    const error = configErrorOf(() => configured.app);
    expect(error).toMatchObject({ file: '<svcAcl options>', path: '$', fix: 'register it with interceptAll, or with intercept for some services or methods' });
    expect(error.problem).toMatch(/^svcAcl is registered with intercept(All)?After, so it would decide after the method has run/);
    expect(() => configured.listen(0)).toThrow(ConfigError);
    expect(deleted).toEqual([]);
  });

  test('before the method, it guards as always: an anonymous DELETE is 401 and runs nothing', async () => {
    for (const configured of [api().interceptAll(guard()), api().intercept({ accountService: { deleteAccount: guard() } })]) {
      const { url, close } = await listen(configured.app);
      const anonymous = await request(url).delete('/api/account-service/delete-account?id=1');
      const admin = await request(url)
        .delete('/api/account-service/delete-account?id=2')
        .set('Authorization', `Bearer ${await token({ role: 'admin' })}`);
      await close();
      expect([anonymous.status, admin.status]).toEqual([401, 200]);
    }
    expect(deleted).toEqual(['2', '2']);
  });
});

describe('an owners entry naming no route says why', () => {
  test.each([
    ['a method listed in internal', 'accountService.purgeAll', 'accountService.purgeAll is no route of the API (purgeAll is listed in AccountService.internal)'],
    ['a service registered with routes: false', 'auditService.record', 'auditService.record is no route of the API (auditService is registered with routes: false)'],
  ])('%s', (_name, target, problem) => {
    const error = configErrorOf(() => api().interceptAll(guard({ owners: { [target]: { id: 'accounts' } } })).app);
    expect(error).toMatchObject({ path: `$.owners["${target}"]`, problem });
  });

  test('a name that is nothing of the container keeps the example of a route', () => {
    expect(configErrorOf(() => api().interceptAll(guard({ owners: { 'accountService.deleteAcount': { id: 'accounts' } } })).app).fix).toBe('use "<instance>.<method>", e.g. "accountService.deleteAccount"');
  });
});
