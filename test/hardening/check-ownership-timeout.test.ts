import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { z } from 'zod';
import { bearerJwt, bearerJwtAcl, type BearerJwtAclOptions } from '../../src/auth';
import { ConfigError, type CheckOwnership } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer, type SvcAclOptions } from '../../src/svc';
import { EXPRESS_VERSIONS, serveGuarded } from '../helpers/guarded-express';
import { HS256, token } from '../helpers/tokens';

// Finding 8 and SPEC 7.5: a checkOwnership that never settles must not leave a request hanging.
// Past checkOwnershipTimeoutMs the parameter is not owned, so the request is denied with 403 and
// the handler never runs; an answer that comes later changes nothing.

const openapi = {
  openapi: '3.0.3',
  info: { title: 'users', version: '1' },
  servers: [{ url: '/api/v1' }],
  security: [{ bearerAuth: [] }],
  components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
  paths: { '/users/{userId}': { get: { parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }] } } },
};
const acl = { bearerAuth: { anonymous: {}, user: { '/users/{userId}': { 'read:own': ['*'] } } } };

const never: CheckOwnership = () => new Promise<boolean>(() => undefined);
/** A check that answers after `ms`; `answered` settles when it has. */
function lateCheck(ms: number, answer: 'true' | 'rejection'): { check: CheckOwnership; answered: Promise<void> } {
  let done!: () => void;
  const answered = new Promise<void>((resolve) => (done = resolve));
  const check: CheckOwnership = () =>
    new Promise<boolean>((resolve, reject) =>
      setTimeout(() => {
        if (answer === 'true') resolve(true);
        else reject(new Error('too late'));
        // After the check's own handlers have run.
        setImmediate(done);
      }, ms),
    );
  return { check, answered };
}

describe.each(EXPRESS_VERSIONS)('bearerJwtAcl on %s', (_name, express) => {
  const serve = (options: Partial<BearerJwtAclOptions>) => serveGuarded(express, { openapi, handler: bearerJwt(HS256), acl, ...options });
  const asUser = async () => `Bearer ${await token({ role: 'user' })}`;

  test('a check that never settles: 403 once checkOwnershipTimeoutMs has passed, and the route does not run', async () => {
    const { url, close, ran } = await serve({ checkOwnership: never, checkOwnershipTimeoutMs: 50 });
    try {
      const response = await request(url).get('/api/v1/users/1').set('Authorization', await asUser());
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: 'Forbidden', message: 'read:own needs ownership of path parameter userId', code: 'ERR_SVCGATE_FORBIDDEN' });
      expect(ran).toEqual([]);
    } finally {
      await close();
    }
  });

  test.each(['true', 'rejection'] as const)('a late %s changes nothing: still 403, the route never runs', async (answer) => {
    const late = lateCheck(150, answer);
    const { url, close, ran } = await serve({ checkOwnership: late.check, checkOwnershipTimeoutMs: 50 });
    try {
      expect((await request(url).get('/api/v1/users/1').set('Authorization', await asUser())).status).toBe(403);
      await late.answered;
      expect(ran).toEqual([]);
    } finally {
      await close();
    }
  });

  test('an answer within the limit counts', async () => {
    const { url, close, ran } = await serve({ checkOwnership: () => Promise.resolve(true), checkOwnershipTimeoutMs: 50 });
    try {
      expect((await request(url).get('/api/v1/users/1').set('Authorization', await asUser())).status).toBe(200);
      expect(ran).toEqual(['/api/v1/users/1']);
    } finally {
      await close();
    }
  });
});

describe('svcAcl on SvcApi', () => {
  class AccountService {
    static schemas = { getAccount: z.object({ accountId: z.string() }) };
    static ran: string[] = [];
    getAccount({ accountId }: { accountId: string }) {
      AccountService.ran.push(accountId);
      return { accountId };
    }
  }
  const options = (checkOwnership: CheckOwnership): SvcAclOptions => ({
    handler: bearerJwt(HS256),
    acl: { anonymous: {}, customer: { '/api/account-service/get-account': { 'read:own': ['*'] } } },
    owners: { 'accountService.getAccount': { accountId: 'accounts' } },
    checkOwnership,
    checkOwnershipTimeoutMs: 50,
  });
  async function serve(checkOwnership: CheckOwnership) {
    const server = await new SvcApi().interceptAll(svcAcl(options(checkOwnership))).from(new SvcContainer().ofLocal(AccountService)).listen(0);
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
  }
  const get = async (url: string) => request(url).get('/api/account-service/get-account?accountId=acc-1').set('Authorization', `Bearer ${await token({ role: 'customer' })}`);
  beforeEach(() => {
    AccountService.ran.length = 0;
  });

  test('a check that never settles: 403 once checkOwnershipTimeoutMs has passed, and the method does not run', async () => {
    const { url, close } = await serve(never);
    try {
      const response = await get(url);
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: 'Forbidden', message: 'read:own needs ownership of query parameter accountId', code: 'ERR_SVCGATE_FORBIDDEN' });
      expect(AccountService.ran).toEqual([]);
    } finally {
      await close();
    }
  });

  test('a late true changes nothing: still 403, the method never runs', async () => {
    const late = lateCheck(150, 'true');
    const { url, close } = await serve(late.check);
    try {
      expect((await get(url)).status).toBe(403);
      await late.answered;
      expect(AccountService.ran).toEqual([]);
    } finally {
      await close();
    }
  });
});

describe('checkOwnershipTimeoutMs must be a positive whole number of milliseconds that a timer can hold', () => {
  const bad: [string, unknown][] = [
    ['zero', 0],
    ['negative', -1],
    ['a fraction', 1.5],
    ['a string', '50'],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['over 2^31 - 1', 2 ** 31],
  ];

  /** The ConfigError `create` throws, or undefined. */
  function configError(create: () => unknown): ConfigError | undefined {
    try {
      create();
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    return undefined;
  }
  const adapters: [string, (value: unknown) => unknown][] = [
    ['bearerJwtAcl', (value) => bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl, checkOwnershipTimeoutMs: value } as BearerJwtAclOptions)],
    ['svcAcl', (value) => svcAcl({ handler: bearerJwt(HS256), acl: { anonymous: {} }, checkOwnershipTimeoutMs: value } as SvcAclOptions)],
  ];

  describe.each(adapters)('%s', (_adapter, create) => {
    test.each(bad)('%s is a ConfigError that names the option', (_name, value) => {
      expect(configError(() => create(value))).toMatchObject({ path: '$.checkOwnershipTimeoutMs', problem: expect.stringMatching(/^checkOwnershipTimeoutMs must /) });
    });

    test('1 and 2^31 - 1 are accepted', () => {
      expect(configError(() => create(1))).toBeUndefined();
      expect(configError(() => create(2 ** 31 - 1))).toBeUndefined();
    });
  });
});
