import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { bearerJwt, bearerJwtAcl, BearerJWT, type BearerJwtAclOptions } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { startOasHost, type OasHost } from '../helpers/oas-host';
import { alternatingMedians } from '../helpers/alternating-medians';
import { bearerApi } from '../helpers/bearer-api';
import { RawHttpConnection, type RawResponse } from '../helpers/raw-http';
import { HS256, token } from '../helpers/tokens';

// SPEC 7.1, 7.2, 7.3 and 7.9 through each adapter, over raw sockets so that no client normalises
// the request target: the findings of the security review as regression tests. Each request
// either is refused before the handler, or the handler gets exactly the values that were decided on.
const FIXTURE = join(__dirname, '../fixtures/request-reading');
const OPENAPI = join(FIXTURE, 'openapi.yaml');
const ACL = join(FIXTURE, 'permissions.yaml');
type ExpressFactory = () => { use: (...args: unknown[]) => void; get: (...args: unknown[]) => void; delete: (...args: unknown[]) => void; listen: (port: number, host: string, done: () => void) => { address(): AddressInfo; close(): void } };
const EXPRESS: [string, ExpressFactory][] = [
  ['Express 4', require('express4') as ExpressFactory],
  ['Express 5', require('express') as ExpressFactory],
];
const USER = { role: 'user', itemId: ['i1'], accounts: ['acc-1'], year: [2024], month: [1], day: [2], userId: [1], price: ['9007199254740993'] };
const manyParams = Array.from({ length: 1000 }, (_, index) => `p${index}=1`).join('&');

interface Echo {
  route: string;
  params: Record<string, string>;
  query: Record<string, unknown>;
}

/** The app behind the guard: each route says which one ran and what it received. */
function echoApp(express: ExpressFactory, options: Partial<BearerJwtAclOptions>) {
  const app = express();
  app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: ACL }, otherSchemes: { apiKey: (req) => req.headers['x-api-key'] === 'k-1' }, ...options }));
  const echo = (route: string) => (req: { params: Record<string, string>; query: Record<string, unknown> }, res: { json: (body: Echo) => void }) => res.json({ route, params: { ...req.params }, query: { ...req.query } });
  app.get('/api/v1/items/:itemId', echo('getItem'));
  app.get('/api/v1/items/:itemId/secret', echo('getSecret'));
  app.get('/api/v1/statements', echo('listStatements'));
  app.get('/api/v1/dates/:year-:month-:day', echo('getDay'));
  app.delete('/api/v1/users/:userId', echo('deleteUser'));
  app.get('/api/v1/prices/:price', echo('getPrice'));
  app.get('/api/v1/reports', echo('listReports'));
  app.get('/api/v1/audits', echo('listAudits'));
  return app;
}

async function serve(express: ExpressFactory, options: Partial<BearerJwtAclOptions> = {}) {
  const app = echoApp(express, options);
  const server = await new Promise<ReturnType<ExpressFactory['prototype']>>((resolve) => {
    const started = app.listen(0, '127.0.0.1', () => resolve(started));
  });
  const connection = new RawHttpConnection((server.address() as AddressInfo).port);
  return { connection, close: () => (connection.close(), server.close()) };
}

const json = (response: RawResponse) => JSON.parse(response.body.toString('utf8')) as Echo & { error?: string; message?: string };

describe.each(EXPRESS)('bearerJwtAcl on %s', (name, express) => {
  let deny: Awaited<ReturnType<typeof serve>>;
  let pass: Awaited<ReturnType<typeof serve>>;
  let bearer: string;
  beforeAll(async () => {
    deny = await serve(express);
    pass = await serve(express, { unknownOperations: 'pass' });
    bearer = `Bearer ${await token(USER)}`;
  });
  afterAll(() => {
    deny.close();
    pass.close();
  });
  const get = (target: string, headers: Record<string, string> = { authorization: bearer }, method = 'GET') => deny.connection.send({ method, target, headers });

  describe('finding 1: the query is decided as the application parses it', () => {
    test('a bracketed key beyond the parser limit is refused, not decided on the later plain key', async () => {
      const response = await get(`/api/v1/statements?%5BaccountId%5D=acc-2&${manyParams}&accountId=acc-1`);
      expect(response.status).toBe(400);
      expect(json(response)).toMatchObject({ error: 'BadRequest', message: expect.stringContaining('accountId') });
    });

    // Express 5 keeps accountId[] apart, but a sub-app with the extended parser would merge them.
    test.each([['accountId[]=acc-2'], ['accountId[0]=acc-2'], ['accountId.x=acc-2'], ['%5BaccountId%5D=acc-2']])('accountId=acc-1&%s is refused, whatever this app parses', async (variant) => {
      expect((await get(`/api/v1/statements?accountId=acc-1&${variant}`)).status).toBe(400);
    });

    test('a repeated owned key is refused; one owned value is decided and handled as sent', async () => {
      expect((await get('/api/v1/statements?accountId=acc-1&accountId=acc-2')).status).toBe(400);
      const owned = await get('/api/v1/statements?accountId=acc-1');
      expect([owned.status, json(owned).query.accountId]).toEqual([200, 'acc-1']);
      expect((await get('/api/v1/statements?accountId=acc-2')).status).toBe(403);
    });
  });

  describe('findings 2 and 3: only origin-form targets without \\, #, encoded separators or dot segments', () => {
    test.each([
      ['/api/v1/items/i2\\secret#'],
      ['/api/v1/items/i2%5Csecret'],
      ['/api/v1/items/i2%2Fsecret'],
      ['/api/v1/items/i1/../i2/secret'],
      ['/api/v1//items/i2/secret'],
      ['/api/v1/items/%zz'],
      ['http://127.0.0.1/api/v1/items/i2/secret'],
      ['*'],
    ])('%s is refused with 400 before matching', async (target) => {
      const response = await get(target);
      expect(response.status).toBe(400);
      expect(json(response).error).toBe('BadRequest');
    });

    test.each([['DELETE', 'http://127.0.0.1/api/v1/users/2'], ['DELETE', '/api/v1\\users\\2#'], ['GET', '/api/v1/items/i2\\secret#']])(
      "unknownOperations 'pass' does not pass on %s %s, with or without a token",
      async (method, target) => {
        expect((await pass.connection.send({ method, target })).status).toBe(400);
        expect((await pass.connection.send({ method, target, headers: { authorization: bearer } })).status).toBe(400);
      },
    );

    test("unknownOperations 'pass' still passes on a plain path that no operation describes", async () => {
      expect((await pass.connection.send({ method: 'GET', target: '/api/v1/unknown' })).status).toBe(404);
    });

    test('the secret of an item the caller does not own stays closed', async () => {
      expect((await get('/api/v1/items/i2/secret')).status).toBe(403);
      const own = await get('/api/v1/items/i1/secret');
      expect([own.status, json(own).route, json(own).params.itemId]).toEqual([200, 'getSecret', 'i1']);
    });
  });

  describe('finding 4: several parameters in one segment, matched in linear time', () => {
    test('each value is the one Express routes', async () => {
      const response = await get('/api/v1/dates/2024-01-02');
      expect(response.status).toBe(200);
      expect(json(response)).toMatchObject({ route: 'getDay', params: { year: '2024', month: '01', day: '02' } });
      expect((await get('/api/v1/dates/2024-01-03')).status).toBe(403);
    });

    test.each([
      ['2024--01-02', '2024--01-02'],
      ['2024-01-02-03', '2024-01-02-03'],
      ['3,200 dashes', '-'.repeat(3200)],
    ])('a segment that splits more than one way (%s) is refused', async (_label, segment) => {
      expect((await get(`/api/v1/dates/${segment}`)).status).toBe(400);
    });

    test('3,200 dashes and /x, anonymous, costs what any path of that length costs (it blocked the event loop for 6 s)', async () => {
      const dashes = () => get(`/api/v1/dates/${'-'.repeat(3200)}/x`, {});
      const letters = () => get(`/api/v1/items/${'a'.repeat(3200)}/x`, {});
      expect((await dashes()).status).toBe(404);
      const [dashCost, letterCost] = await alternatingMedians(dashes, letters, 9);
      expect(dashCost / letterCost).toBeLessThan(10);
    });
  });

  describe('finding 5 and 7: numbers are read exactly, and refused when they are not numbers', () => {
    test('15,000 digits and an x is a bad request', async () => {
      expect((await get(`/api/v1/prices/${'1'.repeat(15_000)}x`)).status).toBe(400);
    });

    test('a price is owned only by its exact value', async () => {
      expect((await get('/api/v1/prices/9007199254740993')).status).toBe(200);
      expect((await get('/api/v1/prices/9007199254740992')).status).toBe(403);
    });
  });

  describe('SPEC 7.9: security alternatives', () => {
    test('an API key alone meets [{ apiKey }, { bearerAuth }]: passed on, not decided by the ACL', async () => {
      const response = await get('/api/v1/reports', { 'x-api-key': 'k-1' });
      expect([response.status, json(response).route]).toEqual([200, 'listReports']);
    });

    test('without a key the bearer ACL decides: user 403, auditor 200, nothing 401', async () => {
      expect((await get('/api/v1/reports')).status).toBe(403);
      expect((await get('/api/v1/reports', { authorization: `Bearer ${await token({ role: 'auditor' })}` })).status).toBe(200);
      expect((await get('/api/v1/reports', { 'x-api-key': 'wrong' })).status).toBe(401);
    });

    test('{ apiKey, bearerAuth } needs both: a token without the key is anonymous', async () => {
      expect((await get('/api/v1/audits', { authorization: bearer, 'x-api-key': 'k-1' })).status).toBe(200);
      expect((await get('/api/v1/audits', { authorization: bearer })).status).toBe(401);
    });
  });
});

test('otherSchemes naming no scheme of the document, or the bearer scheme, is a ConfigError', () => {
  const options = { openapi: OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: ACL } };
  expect(() => bearerJwtAcl({ ...options, otherSchemes: { apikey: () => true } })).toThrow(ConfigError);
  expect(() => bearerJwtAcl({ ...options, otherSchemes: { bearerAuth: () => true } })).toThrow(/bearer scheme/);
});

describe('BearerJWT on @oas-tools/core 3.1.0', () => {
  let host: OasHost;
  let connection: RawHttpConnection;
  let bearer: string;
  beforeAll(async () => {
    host = await startOasHost({ openapi: OPENAPI, jwt: HS256, position: 2, acl: { bearerAuth: ACL }, apiKeys: { apiKey: ['k-1'] } });
    connection = new RawHttpConnection(Number(new URL(host.url).port));
    bearer = `Bearer ${await token(USER)}`;
  });
  afterAll(() => {
    connection.close();
    host.stop();
  });
  const get = (target: string, headers: Record<string, string> = { authorization: bearer }) => connection.send({ method: 'GET', target, headers });
  const received = (response: RawResponse) => (JSON.parse(response.body.toString('utf8')) as { received: { routeParams: Record<string, string>; query: Record<string, unknown>; params: Record<string, unknown> } }).received;

  test('finding 1: a key the host merges into the owned one is refused', async () => {
    expect((await get('/api/v1/statements?accountId=acc-1&accountId[]=acc-2')).status).toBe(400);
    expect((await get(`/api/v1/statements?%5BaccountId%5D=acc-2&${manyParams}&accountId=acc-1`)).status).toBe(400);
    const owned = await get('/api/v1/statements?accountId=acc-1');
    expect([owned.status, received(owned).params.accountId]).toEqual([200, 'acc-1']);
  });

  test('finding 4: a template with several parameters in one segment starts and decides', async () => {
    const response = await get('/api/v1/dates/2024-01-02');
    expect(response.status).toBe(200);
    expect(received(response).routeParams).toEqual({ year: '2024', month: '01', day: '02' });
    expect((await get('/api/v1/dates/2024-01-03')).status).toBe(403);
  });

  test('a value the host rounds (a number beyond 2^53) is refused rather than decided exactly and handled rounded', async () => {
    expect((await get('/api/v1/prices/9007199254740993')).status).toBe(400);
  });

  test('targets the host could read another way are refused', async () => {
    expect((await get('/api/v1/items/i2%2Fsecret')).status).toBe(400);
  });

  test('SPEC 7.9: an API key alone meets the alternative; otherwise the ACL decides', async () => {
    expect((await get('/api/v1/reports', { 'x-api-key': 'k-1' })).status).toBe(200);
    expect((await get('/api/v1/reports')).status).toBe(403);
    expect((await get('/api/v1/audits', { authorization: bearer, 'x-api-key': 'k-1' })).status).toBe(200);
  });
});

describe('BearerJWT guards exactly the routes @oas-tools/core serves', () => {
  let host: OasHost;
  let connection: RawHttpConnection;
  beforeAll(async () => {
    host = await startOasHost({ openapi: join(FIXTURE, 'servers.yaml'), jwt: HS256, position: 2, acl: { bearerAuth: join(FIXTURE, 'servers-permissions.yaml') } });
    connection = new RawHttpConnection(Number(new URL(host.url).port));
  });
  afterAll(() => {
    connection.close();
    host.stop();
  });
  const send = async (method: string, target: string, claims: Record<string, unknown>) => (await connection.send({ method, target, headers: { authorization: `Bearer ${await token(claims)}` } })).status;

  test("an operation's servers carry over to the next method of the path, and the guard is on that route too", async () => {
    expect(await send('DELETE', '/internal/users/2', { role: 'user', userId: [1] })).toBe(403);
    expect(await send('DELETE', '/internal/users/1', { role: 'user', userId: [1] })).toBe(200);
  });

  test('with two server variables, each route the host makes from them is guarded', async () => {
    expect(await send('DELETE', '/api/%7Bversion%7D/items/i2', { role: 'user', itemId: ['i1'] })).toBe(403);
    expect(await send('DELETE', '/%7Bbase%7D/v2/items/i2', { role: 'user', itemId: ['i1'] })).toBe(403);
    expect(await send('DELETE', '/%7Bbase%7D/v2/items/i1', { role: 'user', itemId: ['i1'] })).toBe(200);
  });
});

describe('a response another layer sent while the guard waited is left alone (Express 4 does not catch a rejected middleware)', () => {
  test.each([
    ['a deny', false],
    ['an allow', true],
  ])('%s that comes after a timeout answered: no second answer, no handler, no unhandled rejection', async (_label, owned) => {
    const app = (require('express4') as ExpressFactory)();
    let ran = false;
    app.use((_req: unknown, res: { headersSent: boolean; status: (code: number) => { json: (body: unknown) => void } }, next: () => void) => {
      setTimeout(() => res.headersSent || res.status(503).json({ error: 'Timeout' }), 20);
      next();
    });
    const slowCheck = () => new Promise<boolean>((resolve) => setTimeout(() => resolve(owned), 100));
    app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: ACL }, checkOwnership: slowCheck }));
    app.get('/api/v1/items/:itemId/secret', (_req: unknown, res: { json: (body: unknown) => void }) => {
      ran = true;
      res.json({});
    });
    const unhandled = jest.fn();
    process.on('unhandledRejection', unhandled);
    const server = await new Promise<ReturnType<ExpressFactory['prototype']>>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    const connection = new RawHttpConnection((server.address() as AddressInfo).port);
    try {
      const response = await connection.send({ method: 'GET', target: '/api/v1/items/i2/secret', headers: { authorization: `Bearer ${await token(USER)}` } });
      expect(response.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect([ran, unhandled.mock.calls.length]).toEqual([false, 0]);
    } finally {
      process.off('unhandledRejection', unhandled);
      connection.close();
      server.close();
    }
  });
});

describe('values that parsers read differently are refused wherever they come from', () => {
  test('an owned cookie given twice, quoted, percent-encoded or holding "=" (the cookie package and @oas-tools/core disagree there)', async () => {
    const openapi = bearerApi({ '/notes': { get: { parameters: [{ name: 'noteId', in: 'cookie', schema: { type: 'string' }, 'x-acl-binding': 'notes' }] } } });
    const app = (require('express') as ExpressFactory)();
    app.use(bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: { anonymous: {}, user: { '/notes': { 'read:own': ['*'] } } } } }));
    app.get('/notes', (_req: unknown, res: { json: (body: unknown) => void }) => res.json({}));
    const server = await new Promise<ReturnType<ExpressFactory['prototype']>>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    const connection = new RawHttpConnection((server.address() as AddressInfo).port);
    const authorization = `Bearer ${await token({ role: 'user', notes: ['n1'] })}`;
    const status = async (cookie: string) => (await connection.send({ method: 'GET', target: '/notes', headers: { authorization, cookie } })).status;
    try {
      expect(await status('noteId=n1')).toBe(200);
      for (const cookie of ['noteId=n1; noteId=n2', 'noteId="n1"', 'noteId=n%31', 'noteId=n1=x']) expect([cookie, await status(cookie)]).toEqual([cookie, 400]);
    } finally {
      connection.close();
      server.close();
    }
  });

  test('BearerJWT refuses at start-up a path parameter Express cannot route by its name ({user-id} becomes :user-id)', async () => {
    const document = bearerApi({ '/users/:user-id': { get: { parameters: [{ name: 'user-id', in: 'path', required: true, schema: { type: 'string' } }] } } });
    await expect(BearerJWT.initialize(document, { acl: { bearerAuth: { anonymous: {} } } })).rejects.toThrow(/user-id cannot be routed/);
  });
});
