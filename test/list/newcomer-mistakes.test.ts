import express, { type NextFunction, type Request, type Response } from 'express';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestListener } from 'node:http';
import { authOf, bearerJwt, bearerJwtAcl } from '../../src/auth';
import { ListPlanError, matches, toMongo, toSql } from '../../src/list';
import { compileAcl } from '../../src/policy';
import { configErrorOf } from '../helpers/config-error-of';
import { listen } from '../helpers/listen';
import { HS256, token } from '../helpers/tokens';
import { bearerApi } from '../helpers/bearer-api';

/**
 * What a new user of list filtering writes first, from the README and docs/list-filtering.md, in
 * strict TypeScript, and the mistakes such a user makes: each one compiles as written or gets an
 * answer that names the fix.
 */
const API = bearerApi({
  '/orders': { get: { 'x-acl-list': { item: '/orders/{orderId}' }, responses: { 200: { description: 'ok' } } } },
  '/orders/{orderId}': {
    get: {
      parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': 'orders' }],
      responses: { 200: { description: 'ok' } },
    },
  },
}, 'orders');
const ACL = { anonymous: {}, customer: { '/orders/{orderId}': { 'read:own': ['*'] } } };

describe('a list handler in strict TypeScript', () => {
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    const app = express();
    app.use(bearerJwtAcl({ openapi: API, handler: bearerJwt({ ...HS256, audience: false }), acl: { bearerAuth: ACL } }));
    // As the guide writes it: `authOf(req).list` is `ListPlan | undefined` (only list operations carry a plan),
    // and toSql, toMongo and matches take it as it is, with no `!` and no cast.
    app.get('/orders', (req, res) => {
      res.json({ sql: toSql(authOf(req).list, { dialect: 'sqlite', columns: { orderId: 'id' } }), mongo: toMongo(authOf(req).list, { orderId: 'id' }) });
    });
    // The mistake: the item route is no list operation, so its request carries no plan.
    app.get('/orders/:orderId', (req, res) => {
      res.json({ shown: matches(authOf(req).list, { id: Number(req.params.orderId) }, { orderId: 'id' }) });
    });
    app.use((error: ListPlanError, _req: Request, res: Response, _next: NextFunction) => {
      res.status(500).json({ code: error.code, message: error.message });
    });
    server = await listen(app as unknown as RequestListener);
  });
  afterAll(() => server.close());

  const get = async (path: string) => {
    const answer = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${await token({ role: 'customer', orders: [7, '9'] })}` } });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };

  test('on the list operation the plan goes into toSql and toMongo as the guard hands it over', async () => {
    expect(await get('/orders')).toEqual({
      status: 200,
      body: { sql: { text: '("id" IN (?, ?))', values: [7, 9] }, mongo: { $or: [{ id: { $in: [7, 9] } }] } },
    });
  });

  test('on an operation without x-acl-list the error says that it is no list operation and how to declare one', async () => {
    const { status, body } = await get('/orders/7');
    expect(status).toBe(500);
    expect(body.code).toBe('ERR_SVCGATE_LIST_PLAN');
    expect(body.message).toBe(
      'there is no list plan (undefined): only a list operation carries one (req.auth.list, res.locals.oas.acl.list, the SvcApi auth.list), ' +
        'one whose OpenAPI GET declares x-acl-list (SvcApi: a method in static lists), once the guard has allowed the request. ' +
        "Fix: declare x-acl-list: { item: '<the path whose GET reads one item>' } on this operation, or build no list query here",
    );
  });
});

describe('YAML flow style', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svcgate-newcomer-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('a templated path left unquoted in a flow mapping is a YAML error whose fix says to quote it', () => {
    const openapi = join(dir, 'openapi.yaml');
    writeFileSync(
      openapi,
      [
        'openapi: 3.0.3',
        'info: { title: orders, version: "1" }',
        'paths:',
        '  /orders:',
        '    get:',
        '      x-acl-list: { item: /orders/{orderId} }',
        '      responses: { "200": { description: ok } }',
        '',
      ].join('\n'),
    );
    const error = configErrorOf(() => compileAcl({ openapi, acl: ACL }));
    expect(error.problem).toBe('invalid YAML at line 6, column 35: missed comma between flow collection entries');
    expect(error.fix).toBe("correct the YAML syntax there: inside { } or [ ], quote a path with a {parameter}, e.g. '/orders/{orderId}' (or write it in block style)");

    const acl = join(dir, 'permissions.yaml');
    writeFileSync(acl, 'customer: { /orders/{orderId}: { "read:own": ["*"] } }\n');
    expect(configErrorOf(() => compileAcl({ openapi: API, acl })).fix).toBe(
      "correct the YAML syntax there: inside { } or [ ], quote a path with a {parameter}, e.g. '/orders/{orderId}' (or write it in block style)",
    );
  });

  test('other YAML errors keep the plain fix', () => {
    const acl = join(dir, 'broken.yaml');
    writeFileSync(acl, 'customer: { a: [1 }\n');
    expect(configErrorOf(() => compileAcl({ openapi: API, acl })).fix).toBe('correct the YAML syntax there');
  });

  test("the fix of a malformed x-acl-list shows the item quoted, as YAML's flow style needs it", () => {
    const openapi = { ...API, paths: { ...API.paths, '/orders': { get: { 'x-acl-list': '/orders/{orderId}' } } } };
    expect(configErrorOf(() => compileAcl({ openapi, acl: ACL })).fix).toBe("write x-acl-list: { item: '/orders/{orderId}' }, naming the path whose GET reads one item");
  });
});
