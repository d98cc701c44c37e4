import Database from 'better-sqlite3';
import fc from 'fast-check';
import { CompactSign } from 'jose';
import { Agent, request as httpRequest } from 'node:http';
import type { RequestListener } from 'node:http';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { matches, toSql, type ListPlan } from '../../src/list';
import { listen } from '../helpers/listen';
import { startPglite, type PgliteProcess } from '../helpers/pglite-process';
import { HS256, ISSUER, SECRET } from '../helpers/tokens';
import { bearerApi } from '../helpers/bearer-api';

/**
 * SPEC 11 end to end: for many callers, the rows a list handler selects with toSql (in SQLite and
 * in PostgreSQL) and with matches (in memory) are exactly the rows whose item request the same
 * guard allows over HTTP. Two lists: orders, owned by an integer id (ids near and beyond 2^53
 * included), and invoices, owned by a string tenant AND an integer id.
 */
const express = require('express') as () => {
  use: (...args: unknown[]) => void;
  get: (path: string, handler: (req: Req, res: Res) => unknown) => void;
};
type Req = { auth: { decision: { list?: ListPlan } }; params: Record<string, string> };
type Res = { json: (body: unknown) => void; status: (code: number) => Res };

const API = bearerApi({
  '/orders': { get: { 'x-acl-list': { item: '/orders/{orderId}' } } },
  '/orders/{orderId}': { get: { parameters: [{ name: 'orderId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': 'orders' }] } },
  '/invoices': { get: { 'x-acl-list': { item: '/tenants/{tenant}/invoices/{invoiceId}' } } },
  '/tenants/{tenant}/invoices/{invoiceId}': {
    get: {
      parameters: [
        { name: 'tenant', in: 'path', required: true, schema: { type: 'string' }, 'x-acl-binding': 'tenants' },
        { name: 'invoiceId', in: 'path', required: true, schema: { type: 'integer' }, 'x-acl-binding': 'invoices' },
      ],
    },
  },
}, 'lists', { openapi: '3.1.0' });
const ORDER = '/orders/{orderId}';
const INVOICE = '/tenants/{tenant}/invoices/{invoiceId}';
const ACL = {
  anonymous: {},
  support: { [ORDER]: { 'read:any': ['*'] }, [INVOICE]: { 'read:any': ['*'] } },
  customer: { [ORDER]: { 'read:own': ['*', '!note'] }, [INVOICE]: { 'read:own': ['*'] } },
  trainee: { $extend: ['customer'] },
  auditor: { [INVOICE]: { 'read:any': ['amount'] } },
  guest: {},
};

const UNSAFE = [2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 62n, -(2n ** 53n) - 1n];
const TENANTS = ['acme', 'globex', '7', '07', 'Ünïcode', 'a b', 'x,y'];

/** Row ids as JavaScript holds them exactly: a number when safe, else a bigint. */
type Id = number | bigint;
const exact = (id: bigint): Id => (id >= BigInt(Number.MIN_SAFE_INTEGER) && id <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(id) : id);

function rows() {
  const random = fc.sample(fc.integer({ min: -50, max: 5_000 }), { numRuns: 1_200, seed: 30 });
  const orders = [...new Set([...random.map(BigInt), 0n, ...UNSAFE])].map((id) => ({ id: exact(id) }));
  const invoices: { tenant: string; invoiceId: number }[] = [];
  for (const tenant of TENANTS) for (let invoiceId = 1; invoiceId <= 70; invoiceId++) invoices.push({ tenant, invoiceId });
  return { orders, invoices };
}

/** A claim value of every shape the decision accepts: ids as numbers, numeric strings (padded too), unsafe integers as text, and junk. */
function claimSamples(orders: { id: Id }[]): fc.Arbitrary<unknown> {
  // The ids beyond 2^53 are few among the rows: drawn on their own too, so that most callers claim one.
  const someId = fc.oneof(fc.constantFrom(...orders.map(({ id }) => id)), fc.constantFrom(...UNSAFE.map(exact)));
  const value = fc.oneof(
    someId.map((id) => (typeof id === 'bigint' ? String(id) : id)),
    someId.map(String),
    someId.map((id) => (typeof id === 'number' && id >= 0 ? `00${id}` : String(id))),
    fc.constantFrom('x', '', 7.5, true, null, '1e3', ' 5'),
  );
  return fc.oneof(fc.constant(undefined), value, fc.array(value, { maxLength: 12 }));
}

const tenantSamples = fc.oneof(fc.constant(undefined), fc.constantFrom(...TENANTS, 7, 'nobody'), fc.array(fc.constantFrom(...TENANTS, 7, 'nobody', 3), { maxLength: 4 }));
const invoiceSamples = fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 80 }), fc.array(fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 1, max: 70 }).map(String)), { maxLength: 10 }));
const roleSamples = fc.oneof(fc.constantFrom('support', 'customer', 'trainee', 'auditor', 'guest', 'nobody', 7), fc.constant(['guest', 'customer']), fc.constant(['auditor', 'trainee']), fc.constant(undefined));

/** A signed token from payload text, so that the orders claim can hold a JSON number no double holds (9007199254740993), which owns nothing. */
async function rawToken(payload: Record<string, unknown>, unsafeOrder: boolean): Promise<string> {
  let text = JSON.stringify({ iss: ISSUER, exp: Math.floor(Date.now() / 1000) + 600, ...payload });
  if (unsafeOrder && Array.isArray(payload.orders)) text = text.replace('"orders":[', `"orders":[9007199254740993${payload.orders.length > 0 ? ',' : ''}`);
  return new CompactSign(new TextEncoder().encode(text)).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(SECRET));
}

let pg: PgliteProcess;
let db: Database.Database;
let server: { url: string; close: () => Promise<void> };
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const data = rows();

beforeAll(async () => {
  pg = await startPglite();
  await pg.exec('CREATE TABLE orders (id BIGINT PRIMARY KEY); CREATE TABLE invoices (tenant TEXT, invoice_id INTEGER, PRIMARY KEY (tenant, invoice_id));');
  db = new Database(':memory:');
  db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY); CREATE TABLE invoices (tenant TEXT, invoice_id INTEGER, PRIMARY KEY (tenant, invoice_id));');
  const insertOrder = db.prepare('INSERT INTO orders (id) VALUES (?)');
  const insertInvoice = db.prepare('INSERT INTO invoices (tenant, invoice_id) VALUES (?, ?)');
  for (const { id } of data.orders) insertOrder.run(BigInt(id));
  for (const { tenant, invoiceId } of data.invoices) insertInvoice.run(tenant, invoiceId);
  // One statement per table: each row through the child's channel took 20 s.
  await pg.query('INSERT INTO orders (id) SELECT unnest($1::text[])::bigint', [data.orders.map(({ id }) => String(id))]);
  await pg.query('INSERT INTO invoices (tenant, invoice_id) SELECT * FROM unnest($1::text[], $2::int[])', [data.invoices.map(({ tenant }) => tenant), data.invoices.map(({ invoiceId }) => invoiceId)]);
  server = await listen(app() as unknown as RequestListener);
}, 120_000);

afterAll(async () => {
  agent.destroy();
  await server?.close();
  db?.close();
  await pg?.stop();
});

function app() {
  const served = express();
  served.use(bearerJwtAcl({ openapi: API, handler: bearerJwt(HS256), acl: { bearerAuth: ACL } }));
  served.get('/orders', async (req, res) => {
    const list = req.auth.decision.list!;
    const columns = { orderId: 'id' };
    const lite = toSql(list, { dialect: 'sqlite', columns });
    const post = toSql(list, { dialect: 'postgres', columns });
    res.json({
      sqlite: (db.prepare(`SELECT id FROM orders WHERE ${lite.text}`).safeIntegers(true).all(...lite.values) as { id: bigint }[]).map(({ id }) => String(id)),
      postgres: (await pg.query<{ id: string }>(`SELECT id::text AS id FROM orders WHERE ${post.text}`, post.values)).map(({ id }) => id),
      memory: data.orders.filter((row) => matches(list, row, { orderId: 'id' })).map(({ id }) => String(id)),
    });
  });
  served.get('/orders/:orderId', (req, res) => res.json({ id: req.params.orderId }));
  served.get('/invoices', async (req, res) => {
    const list = req.auth.decision.list!;
    const columns = { tenant: 'tenant', invoiceId: 'invoice_id' };
    const lite = toSql(list, { dialect: 'sqlite', columns });
    const post = toSql(list, { dialect: 'postgres', columns });
    const key = ({ tenant, invoice_id }: { tenant: string; invoice_id: number }) => `${tenant}/${invoice_id}`;
    res.json({
      sqlite: (db.prepare(`SELECT tenant, invoice_id FROM invoices WHERE ${lite.text}`).all(...lite.values) as { tenant: string; invoice_id: number }[]).map(key),
      postgres: (await pg.query<{ tenant: string; invoice_id: number }>(`SELECT tenant, invoice_id FROM invoices WHERE ${post.text}`, post.values)).map(key),
      memory: data.invoices.filter((row) => matches(list, row, { tenant: 'tenant', invoiceId: 'invoiceId' })).map(({ tenant, invoiceId }) => `${tenant}/${invoiceId}`),
    });
  });
  served.get('/tenants/:tenant/invoices/:invoiceId', (_req, res) => res.json({ ok: true }));
  return served;
}

function get(path: string, token: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(`${server.url}${path}`, { agent, headers: { authorization: `Bearer ${token}` } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** The item paths whose GET answers 200 for this token, asked 16 at a time. */
async function allowedOneByOne(paths: readonly [string, string][], token: string): Promise<string[]> {
  const allowed: string[] = [];
  for (let start = 0; start < paths.length; start += 64) {
    const answers = await Promise.all(paths.slice(start, start + 64).map(async ([key, path]) => [key, (await get(path, token)).status] as const));
    for (const [key, status] of answers) {
      expect([200, 403]).toContain(status);
      if (status === 200) allowed.push(key);
    }
  }
  return allowed.sort();
}

const sorted = (list: string[]) => [...list].sort();

test('toSql in SQLite and PostgreSQL and matches in memory select exactly the rows the guard allows one by one', async () => {
  const orderPaths = data.orders.map(({ id }): [string, string] => [String(id), `/orders/${String(id)}`]);
  const invoicePaths = data.invoices.map(({ tenant, invoiceId }): [string, string] => [`${tenant}/${invoiceId}`, `/tenants/${encodeURIComponent(tenant)}/invoices/${invoiceId}`]);
  const callers = fc.sample(fc.record({ role: roleSamples, orders: claimSamples(data.orders), tenants: tenantSamples, invoices: invoiceSamples, unsafe: fc.boolean() }), { numRuns: 24, seed: 11 });
  const kinds = new Set<string>();
  for (const caller of callers) {
    const payload: Record<string, unknown> = {};
    for (const claim of ['role', 'orders', 'tenants', 'invoices'] as const) if (caller[claim] !== undefined) payload[claim] = caller[claim];
    const token = await rawToken(payload, caller.unsafe);
    for (const [listPath, paths] of [['/orders', orderPaths], ['/invoices', invoicePaths]] as const) {
      const expected = await allowedOneByOne(paths, token);
      const listed = await get(listPath, token);
      if (expected.length === 0) {
        expect(listed.status).toBe(403);
        kinds.add('none');
        continue;
      }
      expect(listed.status).toBe(200);
      const body = JSON.parse(listed.body) as Record<'sqlite' | 'postgres' | 'memory', string[]>;
      expect(sorted(body.sqlite)).toEqual(expected);
      expect(sorted(body.postgres)).toEqual(expected);
      expect(sorted(body.memory)).toEqual(expected);
      kinds.add(expected.length === paths.length ? 'all' : 'some');
    }
  }
  // The sample reached every kind of plan, so the comparison above was not vacuous.
  expect([...kinds].sort()).toEqual(['all', 'none', 'some']);
}, 300_000);
