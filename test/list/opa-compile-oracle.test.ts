import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { toSql } from '../../src/list';
import { buildInput, compileAcl, Evaluator, type DataDocument, type OperationSpec, type PolicyInput, type VerifiedPayload } from '../../src/policy';
import { bearerApi } from '../helpers/bearer-api';
import { startOpa, type OpaServer } from '../helpers/opa-server';
import { startPglite, type PgliteProcess } from '../helpers/pglite-process';

// Issue 30's second oracle: OPA's own Compile API (`opa run --server`, the pinned OPA) decides
// which rows of a real PostgreSQL (PGlite) a caller may read through the fixed policy's item
// decision, and the rows its SQL selects must be exactly those whose item request
// (`GET /orders/{orderId}`) svcgate's in-process evaluator allows one by one; and so must the rows
// that toSql selects from the plan of the list operation (`GET /orders`, `x-acl-list`).
//
// Why two steps. OPA 1.22's SQL target translates only a residual of `=`, `!=`, `<`... between
// `input.<table>.<column>` and a scalar. The policy itself, asked with the item's parameter unknown
// (`input.params`), leaves a residual that counts partial sets (input_errors, unowned_keys, whose
// rules keep `every`, `in` over a set, `is_array`, `object.get` and `not`) and refers to the rules
// with `else` (`decision`, `possession`) unevaluated, and OPA refuses it (pe_fragment_error; the
// first test below pins the refusal). A wrapper that hands the policy the
// row's id with `with input as {...}` and keeps the row unknown under `input` is refused too
// ("with" not permitted): OPA keeps a `with` on `input` unevaluated while anything under `input` is
// unknown. So:
// 1. item-oracle.rego, loaded beside the unchanged authz.rego and the data document svcgate
//    compiled, evaluates the real `decision` (with a ground `with input`, which partial evaluation
//    does evaluate) for each value a row's id can be compared with: the caller's claim values and
//    one probe value no claim holds, standing for every other row. The row is `data.orders`,
//    unknown, and POST /v1/compile (partial evaluation, Rego AST) leaves one query
//    `data.orders.id_text = "<value>"` per allowed claim value, and an empty query when the probe is
//    allowed.
// 2. Those queries, and nothing else (anything else throws), are written back as Rego over
//    `input.orders` (the root the SQL target accepts) and POST /v1/compile/<rule> with
//    `Accept: application/vnd.opa.sql.postgresql+json` turns them into the WHERE clause run here.
// The probe relies on the policy comparing a parameter with the claims only by equality; the
// per-row decisions it is compared with rely on nothing.

const LIST = 'GET /orders';
const ITEM = 'GET /orders/{orderId}';
const KEY = 'path:orderId';
const ROLES = ['customer', 'vip', 'clerk', 'boss', 'accountant'] as const;
const TWO_53 = 2n ** 53n;
const TWO_63 = 2n ** 63n;
/** Ids every table holds, and which claims pick from: numeric edge cases and small numbers. */
const NOTABLE_IDS = [0n, 1n, 2n, 3n, 7n, 42n, -1n, -7n, 10n ** 15n, TWO_53 - 1n, TWO_53, TWO_53 + 1n, -(TWO_53 + 1n), TWO_63 - 1n, -TWO_63];
const ROW_COUNT = 3000;

// The item needs the scope orders:read or orders:admin (OpenAPI 3.1 lets an http bearer scheme name
// scopes); the list operation needs none of its own, so it needs the item's.
const paths = {
  '/orders': { get: { 'x-acl-list': { item: '/orders/{orderId}' }, responses: { 200: { description: 'the caller’s orders' } } } },
  '/orders/{orderId}': {
    get: {
      security: [{ bearerAuth: ['orders:read'] }, { bearerAuth: ['orders:admin'] }],
      parameters: [{ name: 'orderId', in: 'path', required: true, 'x-acl-binding': 'orders', schema: { type: 'integer' } }],
      responses: { 200: { description: 'one order' } },
    },
  },
  '/invoices/{invoiceId}': {
    get: { parameters: [{ name: 'invoiceId', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: { description: 'one invoice' } } },
  },
};
const openapi = { ...bearerApi(paths), openapi: '3.1.0' };

// read:own, read:any, both through $extend (boss reaches customer's read:own through vip), and a
// role granted nothing on orders.
const acl = {
  anonymous: {},
  customer: { '/orders/{orderId}': { 'read:own': ['*'] } },
  vip: { $extend: ['customer'] },
  clerk: { '/orders/{orderId}': { 'read:any': ['*', '!secret'] } },
  boss: { $extend: ['vip', 'clerk'] },
  accountant: { '/invoices/{invoiceId}': { 'read:any': ['*'] } },
};

const data: DataDocument = compileAcl({ openapi, acl });
const itemOperation: OperationSpec = data.operations[ITEM]!;
const listOperation: OperationSpec = data.operations[LIST]!;
const dir = mkdtempSync(join(tmpdir(), 'svcgate-compile-oracle-'));
let opa: OpaServer | undefined;
let db: PgliteProcess | undefined;
let evaluator: Evaluator;
let rowIds: string[];

beforeAll(async () => {
  writeFileSync(join(dir, 'data.json'), JSON.stringify({ svcgate: { acl: data } }));
  // Both are kept before either failure is thrown, so that afterAll stops whichever did start.
  const [opaStart, dbStart] = await Promise.allSettled([
    startOpa([join(__dirname, '../../policies/authz.rego'), join(__dirname, 'item-oracle.rego'), join(dir, 'data.json')]),
    startPglite(),
  ]);
  if (opaStart.status === 'fulfilled') opa = opaStart.value;
  if (dbStart.status === 'fulfilled') db = dbStart.value;
  for (const start of [opaStart, dbStart]) if (start.status === 'rejected') throw start.reason;
  evaluator = await Evaluator.create(data, { decisionCacheSize: 0 });
  const ids = new Set(NOTABLE_IDS.map(String));
  const randomIds = fc.sample(fc.oneof(fc.bigInt({ min: -50n, max: 500n }), fc.bigInt({ min: -TWO_63, max: TWO_63 - 1n })), { numRuns: ROW_COUNT * 2, seed: 30 });
  for (const id of randomIds) if (ids.size < ROW_COUNT) ids.add(String(id));
  rowIds = [...ids].sort();
  // id_text is the id as the policy compares it (canonical decimal text); PostgreSQL prints a bigint so.
  await db!.exec('CREATE TABLE orders (id bigint PRIMARY KEY, id_text text GENERATED ALWAYS AS (id::text) STORED)');
  await db!.query('INSERT INTO orders (id) SELECT unnest($1::bigint[])', [rowIds]);
}, 60_000);

afterAll(async () => {
  await Promise.all([opa?.stop(), db?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

/** One Rego AST term as OPA's REST API writes it. */
interface Term {
  type: string;
  value: unknown;
}
interface Expr {
  terms: Term | Term[];
  negated?: boolean;
  with?: unknown[];
}

async function opaPost(path: string, body: unknown, accept = 'application/json'): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(`${opa!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify(body) });
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
}

/** `data.orders.<column> = "<text>"` (either side) as [column, text]; anything else is not a residual this test expects. */
function equality(expr: Expr): [string, string] {
  const terms = expr.terms;
  if (expr.negated || expr.with || !Array.isArray(terms) || terms.length !== 3 || JSON.stringify(terms[0]) !== '{"type":"ref","value":[{"type":"var","value":"eq"}]}') {
    throw new Error(`unexpected residual ${JSON.stringify(expr)}`);
  }
  const [left, right] = [terms[1]!, terms[2]!];
  const [ref, text] = left.type === 'ref' ? [left, right] : [right, left];
  const path = ref.value as Term[];
  const rooted = ref.type === 'ref' && path.length === 3 && path[0]!.type === 'var' && path[0]!.value === 'data' && path[1]!.value === 'orders' && path[2]!.type === 'string';
  if (!rooted || text.type !== 'string') throw new Error(`unexpected residual ${JSON.stringify(expr)}`);
  return [path[2]!.value as string, text.value as string];
}

/** Step 2: OPA's residual (a disjunction of conjunctions of equalities) as a module over input.orders. */
function residualModule(queries: Expr[][]): string {
  const rules = queries.map((query) => {
    const conditions = query.map((expr) => {
      const [column, text] = equality(expr);
      return `input.orders[${JSON.stringify(column)}] == ${JSON.stringify(text)}`;
    });
    return `include if {\n\t${conditions.length === 0 ? 'true' : conditions.join('\n\t')}\n}`;
  });
  return ['package item_residual', '', ...rules, ''].join('\n');
}

/** The WHERE clause OPA's SQL target writes for this caller, and the queries it came from. */
async function opaWhere(request: PolicyInput): Promise<{ where: string | null; queries: Expr[][] }> {
  const probe = firstUnclaimed(request.claims?.[KEY] ?? []);
  const partial = await opaPost('/v1/compile', { query: 'data.item_oracle.include', input: { request, key: KEY, probe }, unknowns: ['data.orders'] });
  expect(partial.status).toBe(200);
  const result = partial.body.result as { queries?: Expr[][]; support?: unknown[] };
  if (result.support !== undefined) throw new Error(`unexpected support modules ${JSON.stringify(result.support)}`);
  const queries = result.queries ?? [];
  const put = await fetch(`${opa!.url}/v1/policies/item-residual`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: residualModule(queries) });
  expect(put.status).toBe(200);
  await put.arrayBuffer();
  const sql = await opaPost('/v1/compile/item_residual/include', { input: {}, unknowns: ['input.orders'] }, 'application/vnd.opa.sql.postgresql+json');
  expect(sql.status).toBe(200);
  // No result: no row. An empty query: every row. Else `WHERE ...`.
  const where = (sql.body.result as { query?: string } | undefined)?.query;
  return { where: where ?? null, queries };
}

/** A canonical integer no claim holds: the row it stands for is decided as every unclaimed row. */
function firstUnclaimed(claimed: readonly string[]): string {
  let probe = 0;
  while (claimed.includes(String(probe))) probe++;
  return String(probe);
}

async function selectedIds(where: string | null, values: unknown[] = []): Promise<string[]> {
  if (where === null) return [];
  const rows = await db!.query<{ id: string }>(`SELECT id::text AS id FROM orders ${where}`, values);
  return rows.map((row) => row.id).sort();
}

/** The rows toSql selects from the plan the evaluator gives the list request, and the plan's kind. */
async function plannedIds(payload: VerifiedPayload): Promise<{ kind: string; ids: string[] }> {
  const decision = evaluator.evaluate(buildInput(LIST, listOperation, {}, payload));
  if (decision.list === undefined) throw new Error(`no plan for ${JSON.stringify(payload)}: ${JSON.stringify(decision)}`);
  expect(decision.allow).toBe(decision.list.kind !== 'none');
  const { text, values } = toSql(decision.list, { dialect: 'postgres', columns: { orderId: 'id' } });
  return { kind: decision.list.kind, ids: await selectedIds(`WHERE ${text}`, values) };
}

/** The rows whose item request the in-process evaluator allows, with inputs built as the adapters build them. */
function allowedOneByOne(payload: VerifiedPayload): string[] {
  return rowIds.filter((id) => evaluator.evaluate(buildInput(ITEM, itemOperation, { pathParams: { orderId: id } }, payload)).allow);
}

function difference(selected: readonly string[], allowed: readonly string[]): { onlySelected: string[]; onlyAllowed: string[] } {
  const [a, b] = [new Set(selected), new Set(allowed)];
  return { onlySelected: selected.filter((id) => !b.has(id)).slice(0, 10), onlyAllowed: allowed.filter((id) => !a.has(id)).slice(0, 10) };
}

test('OPA 1.22 SQL target refuses the fixed policy itself with the item parameter unknown (why the oracle takes two steps)', async () => {
  const request = { operation: ITEM, role: 'customer', claims: { [KEY]: ['1', '3'] }, scopes: ['orders:read'] };
  const refusals: Record<string, unknown> = {};
  for (const rule of ['allow', 'decision']) {
    const answer = await opaPost(`/v1/compile/svcgate/authz/${rule}`, { input: request, unknowns: ['input.params'] }, 'application/vnd.opa.sql.postgresql+json');
    refusals[rule] = { status: answer.status, messages: [...new Set((answer.body.errors as { code: string; message: string }[]).map((error) => `${error.code}: ${error.message}`))].sort() };
  }
  // `count` of the residual's partial sets (input_errors, unowned_keys, whose rules hold the `every`
  // and `in`), `possession` and `decision` left as references because they have `else`.
  expect(refusals).toEqual({
    allow: { status: 400, messages: ['pe_fragment_error: eq: invalid ref operand: data.svcgate.authz.possession', 'pe_fragment_error: invalid builtin `count`'] },
    decision: { status: 400, messages: ['pe_fragment_error: invalid data reference "data.svcgate.authz.decision"'] },
  });
});

/** A claim value in any shape a token may carry: ids as numbers and numeric strings, unsafe integers both ways, junk. */
const claimValue = fc.oneof(
  fc.constantFrom(...NOTABLE_IDS).map((id) => (id >= -TWO_53 && id <= TWO_53 ? Number(id) : String(id))),
  fc.constantFrom(...NOTABLE_IDS).map(String),
  fc.constantFrom('007', '+3', '-0', '0042', '9007199254740993', '-9223372036854775808', '99999999999999999999'),
  fc.constantFrom<unknown>(9007199254740993, 7.0, 7.5, '7.0', '1e3', ' 7', 'abc', '', true, null, { id: 7 }, [[7]]),
  fc.bigInt({ min: -50n, max: 500n }).map(Number),
);
const roleClaim = fc.oneof(
  fc.constantFrom<unknown>(...ROLES),
  fc.subarray([...ROLES, 'ghost'], { minLength: 1, maxLength: 3 }),
  fc.constantFrom<unknown>(undefined, 'ghost', 42, [], ['customer', 7]),
);
/** Mostly the scopes the item needs, sometimes the wrong ones or none. */
const scopeClaim = fc.constantFrom<unknown>('orders:read', 'orders:admin', 'profile orders:read', 'orders:read', 'orders:admin', 'profile', '', undefined);
const payloadArbitrary = fc
  .record({ role: roleClaim, orders: fc.oneof(claimValue, fc.array(claimValue, { maxLength: 6 }), fc.constant(undefined)), scope: scopeClaim })
  .map((claims) => Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined)) as VerifiedPayload);

const EDGE_CALLERS: VerifiedPayload[] = [
  // Beyond 2^53 as text (exact), beyond 64 bits, -0 and leading zeros (canonical 0 and 7).
  { role: 'customer', orders: ['9007199254740993', '99999999999999999999', '-0', '007'], scope: 'orders:read' },
  // Beyond 2^53 as a JSON number: rounded on the way, so it owns nothing.
  { role: 'vip', orders: 9007199254740993, scope: 'orders:admin' },
  { role: ['customer', 'clerk'], orders: [1, 2, 3], scope: 'orders:read' },
  { role: 'boss', orders: [1], scope: 'profile' },
  { role: 'customer', orders: [], scope: 'orders:read' },
  { orders: [1] },
];

test('for random callers, the rows OPA-generated SQL and toSql select in PostgreSQL are exactly those whose item request is allowed', async () => {
  const seen = { none: 0, all: 0, some: 0, someRows: 0 };
  await fc.assert(
    fc.asyncProperty(payloadArbitrary, async (payload) => {
      const request = buildInput(ITEM, itemOperation, {}, payload);
      const { where, queries } = await opaWhere(request);
      const selected = await selectedIds(where);
      const allowed = allowedOneByOne(payload);
      expect({ payload, where: where?.slice(0, 300), ...difference(selected, allowed) }).toEqual({ payload, where: where?.slice(0, 300), onlySelected: [], onlyAllowed: [] });
      expect(selected.length).toBe(allowed.length);
      const planned = await plannedIds(payload);
      expect({ payload, plan: planned.kind, ...difference(planned.ids, allowed) }).toEqual({ payload, plan: planned.kind, onlySelected: [], onlyAllowed: [] });
      seen[planned.kind as 'none' | 'all' | 'some'] += 1;
      if (planned.kind === 'some' && allowed.length > 0) seen.someRows += 1;
      if (queries.some((query) => query.length === 0)) expect(where).toBe('');
    }),
    // The edge cases every run compares, before the random callers.
    { numRuns: 60, examples: EDGE_CALLERS.map((payload) => [payload]) },
  );
  // Every kind of plan was compared, not only denials.
  expect(seen.none).toBeGreaterThan(0);
  expect(seen.all).toBeGreaterThan(0);
  expect(seen.some).toBeGreaterThan(0);
  expect(seen.someRows).toBeGreaterThan(0);
}, 120_000);
