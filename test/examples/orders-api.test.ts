import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ROOT, serveExamples, type ServedExamples } from '../helpers/serve-examples';

// The orders example of `make run` (examples/orders-api, SPEC 11): GET /orders pages over exactly
// the orders the caller could read one by one with GET /orders/{orderId}. Real HTTP on 127.0.0.1
// against examples/serve.mjs, tokens signed by the examples' own signer (examples/demo-jwt.mjs).
const run = promisify(execFile);
/** The example seeds ids 1 to 300; every id up to this one is asked for one by one. */
const LAST_ID_ASKED = 320;
const PAGE = 7;

let server: ServedExamples;
let printed = '';
let base = '';

beforeAll(async () => {
  server = await serveExamples('limit=500');
  printed = server.printed;
  base = printed.match(/^ {2}Express \+ bearerJwtAcl, orders \(SQLite\): +(http:\/\/\S+)$/m)![1]!;
}, 60_000);
afterAll(() => {
  server.stop();
});

/** Tokens for these claims, signed as the example's tokens are (issuer, audience, secret, 12 h). */
async function sign(claims: object[]): Promise<string[]> {
  const signer = pathToFileURL(join(ROOT, 'examples/demo-jwt.mjs')).href;
  const script = `import { sign } from ${JSON.stringify(signer)}; console.log(JSON.stringify(await Promise.all(JSON.parse(process.argv[1]).map(sign))));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(claims)]);
  return JSON.parse(stdout) as string[];
}

interface Order {
  orderId: number;
  internalNote?: string;
  [field: string]: unknown;
}
interface Page {
  items: Order[];
  total: number;
  limit: number;
  offset: number;
}

async function get(path: string, token: string | undefined): Promise<{ status: number; body: any }> {
  const response = await fetch(`${base}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

/** Every page of GET /orders?limit=7, checked page by page; the orders in the order listed. */
async function walk(token: string): Promise<Order[]> {
  const listed: Order[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { status, body } = await get(`/orders?limit=${PAGE}&offset=${offset}`, token);
    expect(status).toBe(200);
    const page = body as Page;
    expect([page.limit, page.offset]).toEqual([PAGE, offset]);
    listed.push(...page.items);
    // No page is short but the last: a page of fewer than 7 ends the list, and ends it exactly at total.
    if (page.items.length < PAGE) {
      expect(listed).toHaveLength(page.total);
      return listed;
    }
    expect(page.items).toHaveLength(PAGE);
    expect(offset + PAGE).toBeLessThanOrEqual(page.total);
  }
}

/** GET /orders/{id} for every id from 0 to LAST_ID_ASKED and every extra one: the bodies answered 200, by id. */
async function readable(token: string | undefined, extra: readonly string[]): Promise<Map<string, Order>> {
  const ids = [...Array.from({ length: LAST_ID_ASKED + 1 }, (_, id) => String(id)), ...extra];
  const bodies = new Map<string, Order>();
  const statuses = new Set<number>();
  for (const id of ids) {
    const { status, body } = await get(`/orders/${id}`, token);
    statuses.add(status);
    if (status === 200) bodies.set(String((body as Order).orderId), body as Order);
  }
  // Anything else than allowed-and-found, allowed-but-absent, denied or no token is a finding.
  expect([...statuses].filter((status) => ![200, 401, 403, 404].includes(status))).toEqual([]);
  return bodies;
}

// A customer's `orders` claim: numbers; numeric strings, one with leading zeros and one beyond
// 2^53; one scalar; an empty list; none at all. Ids above 300 are owned but absent (404).
const callers: { name: string; claims?: Record<string, unknown>; list: number }[] = [
  { name: 'support', claims: { sub: 's1', role: 'support' }, list: 200 },
  { name: 'customer with numbers', claims: { sub: 'c1', role: 'customer', orders: [1, 8, 15, 22, 29, 36, 43, 50, 57, 64, 71, 78, 85, 92, 99, 106, 113, 120, 127, 299, 300, 301, 5000] }, list: 200 },
  { name: 'customer with numeric strings', claims: { sub: 'c2', role: 'customer', orders: ['2', '0042', '77', '150', '151', '152', '153', '154', '155', '156', '157', '9007199254740993'] }, list: 200 },
  { name: 'customer with one scalar claim', claims: { sub: 'c3', role: 'customer', orders: 17 }, list: 200 },
  { name: 'guest who is a customer too', claims: { sub: 'c4', role: ['guest', 'customer'], orders: [3, 4, 5, 6, 7, 8, 9, 10] }, list: 200 },
  { name: 'customer with an empty list', claims: { sub: 'c5', role: 'customer', orders: [] }, list: 403 },
  { name: 'customer without the claim', claims: { sub: 'c6', role: 'customer' }, list: 403 },
  { name: 'guest', claims: { sub: 'g1', role: 'guest' }, list: 403 },
  { name: 'token without a role claim', claims: { sub: 'n1' }, list: 403 },
  { name: 'no token', list: 401 },
];

test('every caller lists, 7 at a time, exactly the orders it reads one by one, each as GET /orders/{orderId} shows it', async () => {
  const signed = await sign(callers.flatMap((caller) => (caller.claims ? [caller.claims] : [])));
  const results: Record<string, unknown> = {};
  for (const caller of callers) {
    const token = caller.claims ? signed.shift()! : undefined;
    const claimed = [caller.claims?.orders ?? []].flat().map(String);
    const one = await readable(token, claimed);
    const first = await get(`/orders?limit=${PAGE}`, token);
    expect([caller.name, first.status]).toEqual([caller.name, caller.list]);
    const listed = first.status === 200 ? await walk(token!) : [];
    const ids = listed.map((order) => order.orderId);
    // In order of id, without duplicates, the same set as the per-item answers, the same bodies.
    expect(ids).toEqual([...new Set(ids)].sort((a, b) => a - b));
    expect([caller.name, ids]).toEqual([caller.name, [...one.keys()].map(Number).sort((a, b) => a - b)]);
    for (const order of listed) expect(order).toEqual(one.get(String(order.orderId)));
    results[caller.name] = { count: ids.length, notes: listed.some((order) => 'internalNote' in order) };
  }
  expect(results).toEqual({
    support: { count: 300, notes: true },
    'customer with numbers': { count: 21, notes: false },
    'customer with numeric strings': { count: 11, notes: false },
    'customer with one scalar claim': { count: 1, notes: false },
    'guest who is a customer too': { count: 8, notes: false },
    'customer with an empty list': { count: 0, notes: false },
    'customer without the claim': { count: 0, notes: false },
    guest: { count: 0, notes: false },
    'token without a role claim': { count: 0, notes: false },
    'no token': { count: 0, notes: false },
  });
}, 120_000);

test('limit and offset: defaults 20 and 0; anything but an integer in range is 400 JSON, and a denied caller gets 403 first', async () => {
  const [support, customer, guest] = await sign([
    { sub: 's1', role: 'support' },
    { sub: 'c1', role: 'customer', orders: [5, 6, 7] },
    { sub: 'g1', role: 'guest' },
  ]);
  const defaults = await get('/orders', support);
  expect([defaults.status, defaults.body.items.length, defaults.body.limit, defaults.body.offset, defaults.body.total]).toEqual([200, 20, 20, 0, 300]);
  expect((await get('/orders?limit=100&offset=290', support)).body.items.map((order: Order) => order.orderId)).toEqual([291, 292, 293, 294, 295, 296, 297, 298, 299, 300]);
  // Past the end: an empty page, the total still right.
  expect((await get('/orders?offset=3', customer)).body).toEqual({ items: [], total: 3, limit: 20, offset: 3 });
  const bad = ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-1', 'limit=', 'limit=1&limit=2', 'limit[]=3', 'limit[a]=3', 'offset=-1', 'offset=1e3', 'offset=99999999999999999'];
  for (const query of bad) {
    for (const token of [support, customer]) {
      const { status, body } = await get(`/orders?${query}`, token);
      expect([query, status, body.error, body.message]).toEqual([query, 400, 'BadRequest', expect.stringMatching(/^(limit must be an integer from 1 to 100|offset must be an integer from 0 to 9007199254740991)$/)]);
    }
  }
  expect((await get('/orders?limit=abc', guest)).status).toBe(403);
  expect((await get('/orders?limit=abc', undefined)).status).toBe(401);
});

test('the printed curl lines answer as their comments say', async () => {
  const lines = printed.split('\n# http').at(-1)!.split('\n').filter((line) => line.startsWith('curl '));
  const answers = [];
  for (const line of lines) {
    const { stdout } = await run('sh', ['-c', line.replace(/^curl -i /, 'curl -s ')]);
    answers.push(JSON.parse(stdout));
  }
  const [first, second, own, other, all, guest, tooMany] = answers;
  const adaOrders = Number(printed.match(/whose token lists her (\d+) orders/)![1]);
  expect([first.items.length, first.total, second.items.length, second.offset, second.total]).toEqual([5, adaOrders, 5, 5, adaOrders]);
  expect(first.items.every((order: Order) => order.customerId === 'ada' && !('internalNote' in order))).toBe(true);
  expect([own.customerId, 'internalNote' in own, other.code]).toEqual(['ada', false, 'ERR_SVCGATE_FORBIDDEN']);
  expect([all.items.length, all.total, typeof all.items[0].internalNote]).toEqual([3, 300, 'string']);
  expect([guest.code, tooMany]).toEqual(['ERR_SVCGATE_FORBIDDEN', { error: 'BadRequest', message: 'limit must be an integer from 1 to 100' }]);
});

test("the README's excerpt of the list handler is the example's code, line for line", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const excerpt = readme.slice(readme.indexOf('### A list that pages')).match(/^```js\n([\s\S]*?)^```$/m)![1]!;
  const routes = readFileSync(join(ROOT, 'examples/orders-api/routes.mjs'), 'utf8').split('\n').map((line) => line.trim());
  // Its statements, without the comments either side may word differently.
  const statements = excerpt.split('\n').map((line) => line.replace(/ \/\/ .*$/, '').trim()).filter((line) => line !== '' && !line.startsWith('//') && !line.startsWith('import '));
  expect(statements.length).toBeGreaterThanOrEqual(7);
  expect(statements.filter((line) => !routes.includes(line))).toEqual([]);
});
