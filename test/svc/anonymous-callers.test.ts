import request from 'supertest';
import { bearerJwt } from '../../src/auth';
import { compileAcl, ConfigError, Evaluator } from '../../src/policy';
import { svcAcl, svcAclOpenApi, SvcApi, SvcContainer } from '../../src/svc';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';

// Issue 27, section 5 (SPEC 9.6): svcAcl grants callers without a role only what the ACL's
// `anonymous` declares. The seed's default (anonymous may read:any every operation without
// parameters) opened every GET route without arguments, and TypeScript's `private` is gone at run
// time, so `getSecret` below was a route answering 200 to a request without a token.

class UserService {
  getUser({ userId }: { userId: string }) {
    return { userId, name: 'Ada' };
  }
  listUsers() {
    return [{ userId: 'u1' }];
  }
  private getSecret() {
    return { secret: 'the-secret' };
  }
  // The private method is meant for this one.
  rotateSecret() {
    return { rotated: this.getSecret().secret.length };
  }
}
class StatusService {
  getStatus() {
    return { up: true };
  }
}

const USER_ONLY = { user: { '/api/user-service/get-user': { 'read:any': ['*'] } } };
const container = () => new SvcContainer().ofLocal(UserService).andLocal(StatusService);
const api = (acl: unknown) => new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), acl })).from(container());

describe('an ACL without anonymous', () => {
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => ({ url, close } = await listen(api(USER_ONLY).app)));
  afterAll(() => close());

  test('GET /api/user-service/get-secret without a token is 401 with the bare challenge, not the secret', async () => {
    const answer = await request(url).get('/api/user-service/get-secret');
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toBe('Bearer');
    expect(answer.text).not.toContain('the-secret');
  });

  test('every route without parameters is closed to callers without a token, and to tokens without a role claim', async () => {
    const noRole = `Bearer ${await token({ sub: 'u1' })}`;
    for (const path of ['/api/user-service/get-secret', '/api/user-service/list-users', '/api/status-service/get-status']) {
      expect([path, (await request(url).get(path)).status]).toEqual([path, 401]);
      const answer = await request(url).get(path).set('Authorization', noRole);
      expect([path, answer.status]).toEqual([path, 403]);
      expect(answer.body.message).toContain('the token has no role claim (role), so the caller is anonymous');
    }
  });

  test('a role gets what it is granted, and nothing it is not', async () => {
    const user = `Bearer ${await token({ role: 'user' })}`;
    expect((await request(url).get('/api/user-service/get-user?userId=u1').set('Authorization', user)).status).toBe(200);
    expect((await request(url).get('/api/user-service/get-secret').set('Authorization', user)).status).toBe(403);
  });
});

test('a declared anonymous grants exactly what it declares', async () => {
  const acl = { ...USER_ONLY, anonymous: { '/api/status-service/get-status': { 'read:any': ['*'] } } };
  const { url, close } = await listen(api(acl).app);
  expect((await request(url).get('/api/status-service/get-status')).body).toEqual({ up: true });
  expect((await request(url).get('/api/user-service/list-users')).status).toBe(401);
  expect((await request(url).get('/api/user-service/get-secret')).status).toBe(401);
  await close();
});

describe('a bundle compiled from svcAclOpenApi decides anonymous callers as svcAcl does', () => {
  const described = svcAclOpenApi(api(USER_ONLY));

  test('the document carries x-acl-anonymous-default: none, and the data has no anonymous grant', () => {
    expect(described['x-acl-anonymous-default' as keyof typeof described]).toBe('none');
    const data = compileAcl({ openapi: described, acl: USER_ONLY, scheme: 'bearerAuth' });
    expect(data.anonymous_default).toBe(false);
    const evaluator = Evaluator.createSync(data);
    for (const operation of ['GET /api/user-service/get-secret', 'GET /api/user-service/list-users']) {
      expect(evaluator.evaluate({ operation }).allow).toBe(false);
    }
  });

  test("compiling it is the same as declaring anonymous: {}, to the data's revision", () => {
    const declared = compileAcl({ openapi: described, acl: { ...USER_ONLY, anonymous: {} }, scheme: 'bearerAuth' });
    expect(compileAcl({ openapi: described, acl: USER_ONLY, scheme: 'bearerAuth' })).toEqual(declared);
  });
});

describe("compileAcl's anonymousDefault", () => {
  const { 'x-acl-anonymous-default': _ignored, ...plain } = svcAclOpenApi(api(USER_ONLY)) as Record<string, unknown>;

  test("'seed' (the default without the document's key) keeps the built-in grant, 'none' drops it; the option wins over the document", () => {
    const warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      const open = (options: object) => Evaluator.createSync(compileAcl({ openapi: plain, acl: USER_ONLY, scheme: 'bearerAuth', ...options })).evaluate({ operation: 'GET /api/user-service/get-secret' }).allow;
      expect(open({})).toBe(true);
      expect(open({ anonymousDefault: 'seed' })).toBe(true);
      expect(open({ anonymousDefault: 'none' })).toBe(false);
      expect(open({ openapi: { ...plain, 'x-acl-anonymous-default': 'none' } })).toBe(false);
      expect(open({ openapi: { ...plain, 'x-acl-anonymous-default': 'none' }, anonymousDefault: 'seed' })).toBe(true);
    } finally {
      warnings.mockRestore();
    }
  });

  test('any other value is a ConfigError naming where it is', () => {
    const thrown = (options: object) => {
      try {
        compileAcl({ openapi: plain, acl: USER_ONLY, scheme: 'bearerAuth', ...options });
      } catch (error) {
        return error as ConfigError;
      }
      throw new Error('expected a ConfigError');
    };
    const fromOption = thrown({ anonymousDefault: 'off' });
    expect(fromOption).toBeInstanceOf(ConfigError);
    expect([fromOption.file, fromOption.path, fromOption.problem]).toEqual(['<compileAcl options>', '$.anonymousDefault', 'the anonymous default is "off"']);
    const fromDocument = thrown({ openapi: { ...plain, 'x-acl-anonymous-default': false } });
    expect([fromDocument.file, fromDocument.path, fromDocument.problem]).toEqual(['<inline OpenAPI document>', '$["x-acl-anonymous-default"]', 'the anonymous default is boolean']);
  });
});
