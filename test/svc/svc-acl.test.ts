import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { z } from 'zod';
import { bearerJwt, type DecisionLogEvent } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { svcAcl, SvcApi, SvcContainer, type SvcAclOptions, type SvcCallContext } from '../../src/svc';
import { HS256, token } from '../helpers/tokens';

class AccountService {
  static schemas = { getAccount: z.object({ accountId: z.string() }) };
  getAccount({ accountId }: { accountId: string }) {
    return { accountId, balance: 10, secret: 'pin' };
  }
  getAllAccounts() {
    return [{ accountId: 'a1' }, { accountId: 'a2' }];
  }
  createAccount(account: { ownerId: number }) {
    return { created: account.ownerId };
  }
  deleteAccount({ accountId }: { accountId: string }) {
    return { deleted: accountId };
  }
}

const ACL = {
  customer: {
    '/api/account-service/get-account': { 'read:own': ['*', '!secret'] },
    '/api/account-service/create-account': { 'create:own': ['*'] },
    '/api/account-service/get-all-accounts': { 'read:own': ['*'] },
  },
  banker: { $extend: ['customer'], '/api/account-service/get-all-accounts': { 'read:any': ['*'] }, '/api/account-service/delete-account': { 'delete:any': ['*'] } },
};
const OWNERS = { 'accountService.getAccount': { accountId: 'accounts' }, 'accountService.createAccount': { ownerId: 'sub' } };

let server: Server;
let url: string;
const events: DecisionLogEvent[] = [];
const ran: string[] = [];
beforeAll(async () => {
  const guard = svcAcl({ handler: bearerJwt(HS256), acl: ACL, owners: OWNERS, decisionLog: (event) => events.push(event) });
  server = await new SvcApi()
    .interceptAll(guard)
    .interceptAllAfter((req, _res, next) => {
      ran.push(req.path);
      next();
    })
    .from(new SvcContainer().ofLocal(AccountService))
    .listen(0);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  ran.length = 0;
});

const as = async (claims: Record<string, unknown>) => `Bearer ${await token(claims)}`;

test('read:own on getAccount allows only the caller whose accounts claim holds the accountId', async () => {
  const auth = await as({ role: 'customer', accounts: ['acc-1', 'acc-2'] });
  const mine = await request(url).get('/api/account-service/get-account?accountId=acc-2').set('Authorization', auth);
  expect(mine.status).toBe(200);
  expect(mine.body).toEqual({ accountId: 'acc-2', balance: 10 });
  const other = await request(url).get('/api/account-service/get-account?accountId=acc-3').set('Authorization', auth);
  expect(other.status).toBe(403);
  expect(other.body).toEqual({ error: 'Forbidden', message: 'read:own needs ownership of query parameter accountId', code: 'ERR_SVCGATE_FORBIDDEN' });
  expect(ran).toEqual(['/api/account-service/get-account']);
});

test('a new token whose key is at hand, and a token verified before, are decided at once: the service runs within the call of the interceptor before svcAcl', async () => {
  const withinCall: boolean[] = [];
  const api = await new SvcApi()
    .interceptAll((req, _res, next) => {
      (req as { inFirstCall?: boolean }).inFirstCall = true;
      next();
      (req as { inFirstCall?: boolean }).inFirstCall = false;
    })
    .interceptAll(svcAcl({ handler: bearerJwt(HS256), acl: ACL, owners: OWNERS }))
    .interceptAllAfter((req, _res, next) => {
      withinCall.push((req as { inFirstCall?: boolean }).inFirstCall === true);
      next();
    })
    .from(new SvcContainer().ofLocal(AccountService))
    .listen(0);
  const at = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  const auth = await as({ role: 'customer', accounts: ['acc-1'] });
  for (let i = 0; i < 2; i++) expect((await request(at).get('/api/account-service/get-account?accountId=acc-1').set('Authorization', auth)).status).toBe(200);
  // The first is verified synchronously (the secret is at hand); the token cache answers the second.
  expect(withinCall).toEqual([true, true]);
  await new Promise((resolve) => api.close(resolve));
});

describe("the caller and the result's attributes", () => {
  class ProfileService {
    // The second argument: the caller that svcAcl verified, without an interceptor of the service's own.
    getProfile(_argument: unknown, { auth }: SvcCallContext) {
      return { sub: auth?.payload?.sub, role: auth?.decision.role, pin: '1234' };
    }
  }
  const profileAcl = { anonymous: {}, customer: { '/api/profile-service/get-profile': { 'read:any': ['*', '!pin'] } } };
  const build = (options: Partial<SvcAclOptions>) => new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), acl: profileAcl, ...options })).from(new SvcContainer().ofLocal(ProfileService)).app;

  test('a method reads the caller from its second argument, and its result is filtered to the granted attributes', async () => {
    const answer = await request(build({})).get('/api/profile-service/get-profile').set('Authorization', await as({ role: 'customer', sub: 'c-1' }));
    expect(answer.body).toEqual({ sub: 'c-1', role: 'customer' });
  });

  test('filterResults: false sends the result as the method returned it', async () => {
    const answer = await request(build({ filterResults: false })).get('/api/profile-service/get-profile').set('Authorization', await as({ role: 'customer', sub: 'c-1' }));
    expect(answer.body).toEqual({ sub: 'c-1', role: 'customer', pin: '1234' });
  });

  test('an after-interceptor sees the filtered result, and what it adds is sent', async () => {
    const seen: unknown[] = [];
    const app = new SvcApi()
      .interceptAll(svcAcl({ handler: bearerJwt(HS256), acl: profileAcl }))
      .interceptAllAfter((_req, res, next) => {
        const body = (res.locals.svc as { body: Record<string, unknown> }).body;
        seen.push(body);
        res.body({ ...body, served: true });
        next();
      })
      .from(new SvcContainer().ofLocal(ProfileService)).app;
    const answer = await request(app).get('/api/profile-service/get-profile').set('Authorization', await as({ role: 'customer', sub: 'c-2' }));
    expect(seen).toEqual([{ sub: 'c-2', role: 'customer' }]);
    expect(answer.body).toEqual({ sub: 'c-2', role: 'customer', served: true });
  });
});

test('owners binds a JSON body field of a POST route to a claim', async () => {
  const auth = await as({ role: 'customer', sub: 7 });
  expect((await request(url).post('/api/account-service/create-account').set('Authorization', auth).send({ ownerId: 7 })).status).toBe(200);
  expect((await request(url).post('/api/account-service/create-account').set('Authorization', auth).send({ ownerId: 8 })).status).toBe(403);
  expect((await request(url).post('/api/account-service/create-account').set('Authorization', auth).send({})).status).toBe(403);
});

test('own on a route with nothing to own never lists everything; any does', async () => {
  expect((await request(url).get('/api/account-service/get-all-accounts').set('Authorization', await as({ role: 'customer' }))).status).toBe(403);
  expect((await request(url).get('/api/account-service/get-all-accounts').set('Authorization', await as({ role: 'banker' }))).status).toBe(200);
});

test('$extend: the banker holds the customer grants', async () => {
  const auth = await as({ role: 'banker', accounts: 'acc-9' });
  expect((await request(url).get('/api/account-service/get-account?accountId=acc-9').set('Authorization', auth)).status).toBe(200);
  expect((await request(url).delete('/api/account-service/delete-account?accountId=x').set('Authorization', auth)).status).toBe(200);
});

test('401 without a token (bare challenge) and with a bad one (invalid_token)', async () => {
  const none = await request(url).delete('/api/account-service/delete-account?accountId=x');
  expect(none.status).toBe(401);
  expect(none.headers['www-authenticate']).toBe('Bearer');
  const bad = await request(url).delete('/api/account-service/delete-account?accountId=x').set('Authorization', 'Bearer x.y.z');
  expect(bad.status).toBe(401);
  expect(bad.headers['www-authenticate']).toBe('Bearer error="invalid_token", error_description="the token is not a well-formed JWT"');
  expect(bad.body).toEqual({ error: 'Unauthorized', message: 'the token is not a well-formed JWT', code: 'ERR_JWS_INVALID' });
  expect(ran).toEqual([]);
});

test('decisions are logged with the route as the operation', async () => {
  events.length = 0;
  await request(url).delete('/api/account-service/delete-account?accountId=x').set('Authorization', await as({ role: 'customer' }));
  expect(events).toEqual([expect.objectContaining({ operation: 'DELETE /api/account-service/delete-account', result: expect.objectContaining({ allow: false }) })]);
});

describe('bad configurations fail when the app is built', () => {
  const build = (options: Partial<SvcAclOptions>) => () => new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), acl: ACL, ...options } as SvcAclOptions)).from(new SvcContainer().ofLocal(AccountService)).app;
  test('an ACL naming a path that is no route', () => {
    expect(build({ acl: { customer: { '/api/account-service/get-acount': { 'read:any': ['*'] } } } })).toThrow(ConfigError);
    expect(build({ acl: { customer: { '/api/account-service/get-acount': { 'read:any': ['*'] } } } })).toThrow('/api/account-service/get-acount is not a path of the OpenAPI document');
  });
  test('with strict, a grant for an action the route never is (update on a GET route)', () => {
    const acl = { anonymous: {}, customer: { '/api/account-service/get-account': { 'update:own': ['*'] } } };
    expect(build({ acl, strict: true })).toThrow('no operation is the action of this grant, so it decides nothing: update:own of customer on /api/account-service/get-account (served: read)');
  });
  test('owners naming a method that is no route', () => {
    expect(build({ owners: { 'accountService.getAcount': { accountId: 'accounts' } } })).toThrow('accountService.getAcount is no route of the API');
  });
  test('options are validated when svcAcl is called', () => {
    expect(() => svcAcl({ acl: ACL } as SvcAclOptions)).toThrow('handler must be the function bearerJwt(config) returns');
    expect(() => svcAcl({ handler: bearerJwt(HS256), acl: ACL, owners: { getAccount: {} } })).toThrow('owners keys are "<instance>.<method>"');
  });
});

describe('the decision is made on the argument the method gets (SPEC 7.1)', () => {
  // A schema that changes an owned field would hand the method another account than the one decided on.
  class LedgerService {
    static schemas = { getLedger: z.object({ accountId: z.string().transform((id) => id.toUpperCase()) }), getEntry: z.object({ entryId: z.string() }) };
    getLedger({ accountId }: { accountId: string }) {
      return { accountId };
    }
    getEntry({ entryId }: { entryId: string }) {
      return { entryId };
    }
  }
  const acl = { anonymous: {}, customer: { '/api/ledger-service/get-ledger': { 'read:own': ['*'] }, '/api/ledger-service/get-entry': { 'read:own': ['*'] } } };
  const owners = { 'ledgerService.getLedger': { accountId: 'accounts' }, 'ledgerService.getEntry': { entryId: 'entries' } };
  const app = () => new SvcApi().interceptAll(svcAcl({ handler: bearerJwt(HS256), acl, owners })).from(new SvcContainer().ofLocal(LedgerService)).app;

  test('a schema that transforms an owned field is refused with 400; one that keeps it is decided on it', async () => {
    const authorization = `Bearer ${await token({ role: 'customer', accounts: ['acc-1', 'ACC-1'], entries: ['e1'] })}`;
    const transformed = await request(app()).get('/api/ledger-service/get-ledger?accountId=acc-1').set('Authorization', authorization);
    expect([transformed.status, transformed.body.error]).toEqual([400, 'BadRequest']);
    const kept = await request(app()).get('/api/ledger-service/get-entry?entryId=e1').set('Authorization', authorization);
    expect([kept.status, kept.body]).toEqual([200, { entryId: 'e1' }]);
  });

  test("the guard checks the query object the argument was read from: the app's query parser runs once per request", async () => {
    // Express 5 runs the query parser on every read of req.query; a second read could give the guard another object than the method.
    const texts: string[] = [];
    const api = app();
    api.set('query parser', (text: string) => {
      texts.push(text);
      return Object.fromEntries(new URLSearchParams(text));
    });
    const authorization = `Bearer ${await token({ role: 'customer', entries: ['e1'] })}`;
    const allowed = await request(api).get('/api/ledger-service/get-entry?entryId=e1').set('Authorization', authorization);
    expect([allowed.status, allowed.body]).toEqual([200, { entryId: 'e1' }]);
    const variant = await request(api).get('/api/ledger-service/get-entry?entryId=e1&entryId[x]=e2').set('Authorization', authorization);
    expect([variant.status, variant.body.error]).toEqual([400, 'BadRequest']);
    expect(texts).toEqual(['entryId=e1', 'entryId=e1&entryId[x]=e2']);
  });

  test('an argument its schema refuses is a 400 with the issues, before any decision', async () => {
    const response = await request(app()).get('/api/ledger-service/get-entry');
    expect([response.status, response.body.error]).toEqual([400, 'ValidationError']);
  });
});
