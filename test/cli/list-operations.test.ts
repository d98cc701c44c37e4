import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import express from 'express';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { bundleConsumer } from '../../src/fleet';
import { toSql, type ListPlan } from '../../src/list';
import { BundleServer } from '../helpers/bundle-server';
import { listen } from '../helpers/listen';
import { svcgate } from '../helpers/svcgate-cli';
import { HS256, token } from '../helpers/tokens';

// List operations (x-acl-list, SPEC 11) as the CLI shows them, through the built bin. The fixture:
// GET /orders lists GET /orders/{orderId} (owned through the claim orders), GET /invoices lists an
// item with two owned parameters; support reads any, customer reads its own, guest nothing.
const FIXTURE = join(__dirname, '../fixtures/orders-list');
const OPENAPI = join(FIXTURE, 'openapi.yaml');
const ACL = join(FIXTURE, 'permissions.yaml');
const API = ['--openapi', OPENAPI, '--acl', ACL];

const explain = (claims: unknown, target: string, ...options: string[]) => svcgate('explain', ...API, '--token-claims', JSON.stringify(claims), ...options, 'GET', target);

/** The lines explain prints for a plan's SQL: what toSql writes for it, with its values. */
function sqlLines(plan: ListPlan, dialect: 'postgres' | 'sqlite', columns: Record<string, string>): string[] {
  const { text, values } = toSql(plan, { dialect, columns });
  return [`sql (${dialect}): ${text}`, `sql values: ${JSON.stringify(values)}`];
}

/** The lines of explain's output from `lists:` up to `caller:`: what it says of the list. */
function listLines(stdout: string): string[] {
  const lines = stdout.split('\n');
  return lines.slice(
    lines.findIndex((line) => line.startsWith('lists: ')),
    lines.findIndex((line) => line.startsWith('caller: ')),
  );
}

const ALL: ListPlan = { kind: 'all', anyOf: [], attributes: ['*'] };

describe('svcgate explain on a list operation', () => {
  test('support lists every order: plan all, and the SQL toSql writes for it in each dialect', async () => {
    const postgres = await explain({ role: 'support' }, '/api/v1/orders', '--sql', 'postgres');
    expect(postgres.code).toBe(0);
    expect(postgres.stdout).toMatch(/^GET \/api\/v1\/orders -> GET \/orders\ndecision: ALLOW\n/);
    expect(listLines(postgres.stdout)).toEqual([
      'lists: GET /orders/{orderId} (x-acl-list): the items the caller could read one by one',
      'plan: all, every item',
      'plan attributes: *',
      ...sqlLines(ALL, 'postgres', { orderId: 'orderId' }),
    ]);
    expect(listLines((await explain({ role: 'support' }, '/api/v1/orders', '--sql', 'sqlite')).stdout).slice(3)).toEqual(sqlLines(ALL, 'sqlite', { orderId: 'orderId' }));
  });

  test('a customer lists the orders its claim names, typed as the item parameter; the SQL of both dialects binds them', async () => {
    const claims = { role: 'customer', orders: [9, '7', 'seven', '9007199254740993'] };
    const plan: ListPlan = { kind: 'some', anyOf: [{ orderId: [7, 9, '9007199254740993'] }], attributes: ['!internalNote', '*'] };
    const postgres = await explain(claims, '/api/v1/orders', '--sql', 'postgres');
    expect(postgres.code).toBe(0);
    expect(listLines(postgres.stdout)).toEqual([
      'lists: GET /orders/{orderId} (x-acl-list): the items the caller could read one by one',
      'plan: some, the items where orderId IN (7, 9, "9007199254740993")',
      'plan attributes: !internalNote *',
      ...sqlLines(plan, 'postgres', { orderId: 'orderId' }),
    ]);
    expect(postgres.stdout).toContain('\nsql (postgres): (("orderId" IN ($1, $2) OR ("orderId" = $3 AND CAST("orderId" AS TEXT) = $4)))\nsql values: [7,9,"9007199254740993","9007199254740993"]\n');
    const sqlite = await explain(claims, '/api/v1/orders', '--sql', 'sqlite', '--column', 'orderId=o.order_id');
    expect(listLines(sqlite.stdout).slice(3)).toEqual(sqlLines(plan, 'sqlite', { orderId: 'o.order_id' }));
    expect(sqlite.stdout).toContain('\nsql (sqlite): ("o"."order_id" IN (?, ?, ?))\n');
  });

  test('the SQL explain prints selects, in a real SQLite, exactly the rows the customer may read one by one', async () => {
    const claims = { role: 'customer', orders: [2, 5] };
    const { stdout } = await explain(claims, '/api/v1/orders', '--sql', 'sqlite', '--column', 'orderId=order_id');
    const where = /^sql \(sqlite\): (.*)$/m.exec(stdout)![1]!;
    const values = JSON.parse(/^sql values: (.*)$/m.exec(stdout)![1]!) as number[];
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE orders (order_id INTEGER PRIMARY KEY)');
      const insert = db.prepare('INSERT INTO orders VALUES (?)');
      for (let id = 1; id <= 8; id++) insert.run(id);
      const listed = db.prepare(`SELECT order_id FROM orders WHERE ${where} ORDER BY order_id`).pluck().all(...values);
      const readable = [];
      for (let id = 1; id <= 8; id++) if ((await explain(claims, `/api/v1/orders/${id}`)).code === 0) readable.push(id);
      expect(listed).toEqual([2, 5]);
      expect(listed).toEqual(readable);
    } finally {
      db.close();
    }
  });

  test('an item with two owned parameters: AND in one entry; --column maps one, the other keeps its own name', async () => {
    const { code, stdout } = await explain({ role: 'customer', regions: ['eu', 'us'], invoices: 3 }, '/api/v1/invoices', '--sql', 'postgres', '--column', 'region=region_code');
    expect(code).toBe(0);
    expect(listLines(stdout)).toEqual([
      'lists: GET /regions/{region}/invoices/{invoiceId} (x-acl-list): the items the caller could read one by one',
      'plan: some, the items where region IN ("eu", "us") AND invoiceId IN (3)',
      'plan attributes: *',
      ...sqlLines({ kind: 'some', anyOf: [{ region: ['eu', 'us'], invoiceId: [3] }], attributes: ['*'] }, 'postgres', { region: 'region_code', invoiceId: 'invoiceId' }),
    ]);
    expect(stdout).toContain('\nsql (postgres): ("region_code" IN ($1, $2) AND "invoiceId" = $3)\n');
    // --column is repeatable, unlike the other options.
    const both = await explain({ role: 'customer', regions: 'eu', invoices: 3 }, '/api/v1/invoices', '--sql', 'sqlite', '--column', 'region=i.region', '--column', 'invoiceId=i.id');
    expect(listLines(both.stdout).slice(3)).toEqual(sqlLines({ kind: 'some', anyOf: [{ region: ['eu'], invoiceId: [3] }], attributes: ['*'] }, 'sqlite', { region: 'i.region', invoiceId: 'i.id' }));
  });

  test('a guest lists nothing: plan none with the reason, FALSE, exit 1 as for any deny', async () => {
    const { code, stdout } = await explain({ role: 'guest', orders: [1] }, '/api/v1/orders', '--sql', 'postgres');
    expect(code).toBe(1);
    expect(stdout).toContain('decision: DENY\n');
    expect(stdout).toContain('reason: no role of the caller is granted read on /orders/{orderId}\n');
    expect(listLines(stdout).slice(1)).toEqual(['plan: none, no item', 'plan attributes: -', ...sqlLines({ kind: 'none', anyOf: [], attributes: [] }, 'postgres', {})]);
    expect(stdout).toContain('answer: 403, the token is valid but the policy denies\n');
  });

  test('a customer without a value of its claim lists nothing, and is told which claim', async () => {
    const { code, stdout } = await explain({ role: 'customer' }, '/api/v1/orders');
    expect(code).toBe(1);
    expect(stdout).toMatch(/\nreason: read:own lists nothing: the token holds no value of claim orders/);
    expect(stdout).toContain('\nplan: none, no item\n');
    // Without --sql, no SQL.
    expect(stdout).not.toContain('sql');
  });

  test('an operation that lists nothing prints no plan', async () => {
    const { code, stdout } = await explain({ role: 'customer', orders: [3] }, '/api/v1/orders/3');
    // The item was explained (an error would print no plan either).
    expect(code).toBe(0);
    expect(stdout).toMatch(/^GET \/api\/v1\/orders\/3 -> GET \/orders\/\{orderId\}\ndecision: ALLOW\n/);
    expect(stdout).not.toMatch(/^(lists|plan)/m);
  });

  test.each([
    ['--sql on an operation that lists nothing', ['--sql', 'postgres'], '/api/v1/orders/3', 'svcgate: --sql writes the plan of a list operation (x-acl-list) as SQL, and GET /orders/{orderId} is not one: the list operations are GET /orders, GET /invoices (svcgate explain --help)\n'],
    ['an unknown dialect', ['--sql', 'mysql'], '/api/v1/orders', 'svcgate: --sql must be postgres or sqlite, got "mysql" (svcgate explain --help)\n'],
    ['--column without --sql', ['--column', 'orderId=order_id'], '/api/v1/orders', 'svcgate: --column names the column of a plan parameter in the SQL that --sql prints; give --sql postgres|sqlite too (svcgate explain --help)\n'],
    ['--column without =', ['--sql', 'sqlite', '--column', 'orderId'], '/api/v1/orders', 'svcgate: --column orderId: write <parameter>=<column>, e.g. --column orderId=order_id (svcgate explain --help)\n'],
    ['--column without a column', ['--sql', 'sqlite', '--column', 'orderId='], '/api/v1/orders', 'svcgate: --column orderId=: write <parameter>=<column>, e.g. --column orderId=order_id (svcgate explain --help)\n'],
    ['--column of a parameter the item does not own', ['--sql', 'sqlite', '--column', 'orderid=order_id'], '/api/v1/orders', 'svcgate: --column orderid=order_id: the item GET /orders/{orderId} owns no parameter orderid; its owned parameters are orderId (svcgate explain --help)\n'],
    ['one parameter mapped twice', ['--sql', 'sqlite', '--column', 'orderId=a', '--column', 'orderId=b'], '/api/v1/orders', 'svcgate: --column maps orderId twice (to a and to b); give each parameter one column (svcgate explain --help)\n'],
    ['--sql given twice', ['--sql', 'sqlite', '--sql', 'postgres'], '/api/v1/orders', 'svcgate: --sql is given twice; give it once (svcgate explain --help)\n'],
  ])('%s is a usage error: exit 2, one line on stderr, nothing on stdout', async (_name, options, target, stderr) => {
    expect(await explain({ role: 'customer', orders: [1] }, target, ...options)).toEqual({ code: 2, stdout: '', stderr });
  });

  test('a column name toSql cannot quote is named as the --column given', async () => {
    const { code, stderr } = await explain({ role: 'customer', orders: [1] }, '/api/v1/orders', '--sql', 'postgres', '--column', 'orderId=o.');
    expect(code).toBe(2);
    expect(stderr).toMatch(/^svcgate: --column: columns\["orderId"\] is "o\.", not a column name/);
  });

  test('explain --help names --sql and --column; other commands refuse them', async () => {
    const help = await svcgate('explain', '--help');
    expect(help.stdout).toContain('[--sql postgres|sqlite [--column <param>=<column>]...]');
    expect(help.stdout).toMatch(/\n {2}--sql postgres\|sqlite +a list operation only: /);
    expect(help.stdout).toMatch(/\n {2}--column <param>=<column> +with --sql: /);
    expect(await svcgate('audit', ...API, '--sql', 'postgres')).toMatchObject({ code: 2, stderr: 'svcgate: audit takes no --sql (svcgate audit --help)\n' });
  });
});

describe('svcgate audit and diff mark list operations', () => {
  test('text: the list operation names its item, and its cells are the item read grants (own for the customer)', async () => {
    const { code, stdout } = await svcgate('audit', ...API);
    expect(code).toBe(0);
    const rows = stdout.split('\n').map((line) => line.split(/ {2,}/));
    expect(rows).toContainEqual(['GET /orders (lists GET /orders/{orderId})', '-', 'own', '-', 'any']);
    expect(rows).toContainEqual(['GET /invoices (lists GET /regions/{region}/invoices/{invoiceId})', '-', 'own', '-', 'any']);
    expect(rows).toContainEqual(['POST /orders', '-', 'any', '-', '-']);
    expect(rows).toContainEqual(['GET /orders/{orderId}', '-', 'own', '-', 'any']);
    expect(stdout).toContain("\na list operation (x-acl-list) is decided by its item's read grants: any lists every item, own the items the caller owns\n");
  });

  test('--json: the operations as keys, and lists naming each list operation item', async () => {
    const matrix = JSON.parse((await svcgate('audit', ...API, '--json')).stdout);
    expect(matrix.lists).toEqual({ 'GET /orders': 'GET /orders/{orderId}', 'GET /invoices': 'GET /regions/{region}/invoices/{invoiceId}' });
    expect(matrix.operations['GET /orders']).toEqual({ anonymous: '-', customer: 'own', guest: '-', support: 'any' });
    expect(Object.keys(matrix.operations)).toHaveLength(5);
  });

  test('--html: the row says what it lists, the cells the item grant that decides them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-list-audit-'));
    try {
      const page = join(dir, 'audit.html');
      expect((await svcgate('audit', ...API, '--html', page)).code).toBe(0);
      const html = readFileSync(page, 'utf8');
      expect(html).toContain('<th scope="row">GET /orders <small class="lists">lists GET /orders/{orderId}</small></th>');
      expect(html).toContain('data-why="customer on GET /orders: lists the items of GET /orders/{orderId} it owns, attributes [&quot;!internalNote&quot;,&quot;*&quot;]; customer /orders/{orderId} read:own [&quot;*&quot;,&quot;!internalNote&quot;]"');
      expect(html).toContain('data-why="support on GET /orders: lists every item of GET /orders/{orderId}, attributes [&quot;*&quot;]; support /orders/{orderId} read:any [&quot;*&quot;]"');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('diff: a changed item grant changes the item and the list operation, which is labelled with its item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-list-diff-'));
    try {
      const changed = join(dir, 'new.yaml');
      writeFileSync(changed, readFileSync(ACL, 'utf8').replace('read:own: ["*", "!internalNote"]', 'read:own: ["*"]'));
      const args = ['diff', '--openapi', OPENAPI, '--acl', ACL, '--acl-new', changed];
      const { code, stdout } = await svcgate(...args);
      expect(code).toBe(0);
      expect(stdout).toBe(
        [
          'widened  customer on GET /orders (lists GET /orders/{orderId}): own ["!internalNote","*"] -> own ["*"]; new ACL: customer /orders/{orderId} read:own ["*"]',
          'widened  customer on GET /orders/{orderId}: own ["!internalNote","*"] -> own ["*"]; new ACL: customer /orders/{orderId} read:own ["*"]',
          '',
        ].join('\n'),
      );
      const changes = JSON.parse((await svcgate(...args, '--json')).stdout) as { operation: string; lists?: string }[];
      expect(changes.map(({ operation, lists }) => [operation, lists])).toEqual([
        ['GET /orders', 'GET /orders/{orderId}'],
        ['GET /orders/{orderId}', undefined],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('svcgate build and bundle carry list operations', () => {
  test('build: the data document links the list operation to its item', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-list-build-'));
    try {
      expect((await svcgate('build', ...API, '--out', dir)).code).toBe(0);
      const data = JSON.parse(readFileSync(join(dir, 'data.json'), 'utf8')).svcgate.acl;
      expect(data.operations['GET /orders']).toMatchObject({ resource: '/orders/{orderId}', action: 'read', list: { item: 'GET /orders/{orderId}', params: { 'path:orderId': { name: 'orderId', binding: 'orders' } } } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("bundle: an app whose bundleConsumer activated the CLI's bundle hands the list handler the plan", async () => {
    const server = new BundleServer();
    const dir = mkdtempSync(join(tmpdir(), 'svcgate-list-bundle-'));
    const bundleFile = join(dir, 'bundle.tar.gz');
    expect((await svcgate('bundle', ...API, '--revision', 'lists-1', '--out', bundleFile)).code).toBe(0);
    server.publish('bundle.tar.gz', readFileSync(bundleFile));
    rmSync(dir, { recursive: true, force: true });
    const consumer = bundleConsumer({ url: `${await server.start()}bundle.tar.gz` });
    try {
      await consumer.ready();
      const app = express();
      app.use(bearerJwtAcl({ openapi: OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: consumer } }));
      app.get('/api/v1/orders', (req, res) => res.json((req as unknown as { auth: { list: unknown } }).auth.list));
      const { url, close } = await listen(app);
      try {
        const ask = async (claims: Record<string, unknown>) => {
          const answer = await fetch(`${url}/api/v1/orders`, { headers: { authorization: `Bearer ${await token(claims)}` } });
          return { status: answer.status, body: answer.status === 200 ? await answer.json() : undefined };
        };
        expect(await ask({ role: 'customer', orders: [4, 2] })).toEqual({ status: 200, body: { kind: 'some', anyOf: [{ orderId: [2, 4] }], attributes: ['!internalNote', '*'] } });
        expect(await ask({ role: 'support' })).toEqual({ status: 200, body: { kind: 'all', anyOf: [], attributes: ['*'] } });
        expect((await ask({ role: 'guest' })).status).toBe(403);
      } finally {
        await close();
      }
      expect(consumer.status()).toMatchObject({ ready: true, revision: 'lists-1' });
    } finally {
      consumer.close();
      await server.dispose();
    }
  });
});

describe('docs/list-filtering.md, Seen from outside', () => {
  const section = readFileSync(join(__dirname, '../../docs/list-filtering.md'), 'utf8').split('\n## Seen from outside\n')[1]!.split('\n## ')[0]!;
  const blocks = [...section.matchAll(/^```\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  const ORDERS_EXAMPLE = ['--openapi', join(__dirname, '../../examples/orders-api/openapi.yaml'), '--acl', join(__dirname, '../../examples/orders-api/permissions.yaml')];

  test('the explain example prints what the guide shows', async () => {
    const [command, ...output] = blocks[0]!.split('\n');
    // The guide's command line: words, and single-quoted words (the claims).
    const words = [...command!.replace(/^\$ svcgate /, '').matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? match[2]!);
    const run = await svcgate(...words.map((word) => word.replace(/^examples\//, join(__dirname, '../../examples/'))));
    expect(run).toEqual({ code: 0, stdout: output.join('\n'), stderr: '' });
  });

  test("the audit table is the orders example's", async () => {
    expect((await svcgate('audit', ...ORDERS_EXAMPLE)).stdout.startsWith(blocks[1]!)).toBe(true);
  });
});
