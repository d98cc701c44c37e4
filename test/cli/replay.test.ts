import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { EXAMPLE_OPENAPI, exampleBundle, examplePermissions, type Permissions } from '../helpers/bundles';
import { LIST_ACL, LIST_OPENAPI } from '../helpers/list-callers';
import { counts, LIST_CANDIDATE, revokeAndGrant, sendCalls } from '../helpers/replay-fixture';
import { svcgate } from '../helpers/svcgate-cli';
import { HS256, token } from '../helpers/tokens';

// `svcgate replay` (issue 32, item 2) on decision logs that a real bearerJwtAcl wrote as NDJSON
// while it answered real HTTP requests, replayed with candidates that revoke and grant
// permissions; the built CLI, as users run it.
const dir = mkdtempSync(join(tmpdir(), 'svcgate-replay-'));
const LOG = join(dir, 'decisions.ndjson');
/** An account id that is a claim and a parameter value: it may be in the log, never in the report. */
const ACCOUNT = 'acc-secret-42';

const revokeOnly = (permissions: Permissions) => {
  delete permissions.user!['/users/{userId}']!['update:own'];
};

function aclFile(name: string, edit?: (permissions: Permissions) => void): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(examplePermissions(edit)));
  return file;
}

const CANDIDATE = aclFile('candidate.json', revokeAndGrant);

beforeAll(async () => {
  const app = express();
  // The candidate in shadow too: its divergences land in the same log, which replay must skip, not count twice.
  app.use(
    bearerJwtAcl({
      openapi: EXAMPLE_OPENAPI,
      handler: bearerJwt(HS256),
      acl: { bearerAuth: examplePermissions() },
      shadow: { source: examplePermissions(revokeAndGrant) },
      decisionLog: (event) => appendFileSync(LOG, `${JSON.stringify(event)}\n`),
    }),
  );
  app.use((_req, res) => res.json({ ok: true }));
  const user = await token({ role: 'user', userId: 3 });
  const admin = await token({ role: 'admin' });
  const both = await token({ role: ['user', 'admin'], userId: 3 });
  const owner = await token({ role: 'user', accounts: [ACCOUNT] });
  const forged = await token({ role: 'admin' }, 'another-secret-that-is-32-bytes-long');
  await sendCalls(app, [
    ['get', '/api/v1/users/3', user, 200],
    ['get', '/api/v1/users/3', user, 200],
    ['get', '/api/v1/users/4', user, 403],
    ['put', '/api/v1/users/3', user, 200],
    ['get', '/api/v1/users', user, 403],
    ['get', '/api/v1/users', admin, 200],
    ['delete', '/api/v1/users/5', admin, 200],
    ['get', '/api/v1/users', undefined, 401],
    ['get', '/api/v1/users/3', forged, 401],
    ['get', '/api/v1/users/3', both, 200],
    ['get', `/api/v1/transfers?accountId=${ACCOUNT}`, owner, 200],
  ]);
  // The shadow decides after each answer is sent: wait for its two divergences (PUT and user's GET /users).
  for (let i = 0; shadowEvents() < 2; i++) {
    if (i > 500) throw new Error(`${shadowEvents()} shadow divergences logged`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function shadowEvents(): number {
  let text = '';
  try {
    text = readFileSync(LOG, 'utf8');
  } catch {
    return 0;
  }
  return text.split('\n').filter((line) => line.includes('"shadow":')).length;
}

function replay(...options: string[]) {
  return svcgate('replay', '--decision-logs', LOG, ...options);
}


describe('svcgate replay on the decision log bearerJwtAcl wrote', () => {
  test('--json: the counts, by operation and by role, and the examples of the revoked and the granted permission', async () => {
    const run = await replay('--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({
      candidate: { from: 'acl', file: CANDIDATE },
      files: { read: 1, leftOutCount: 0 },
      events: 13,
      ...counts(10, 8, 1, 1, 0),
      notReplayable: { masked: 0, incomplete: 0, malformed_result: 0, unknown_operation: 0, ownership_unchecked: 0 },
      skipped: { shadow: 2, other_path: 0, refused_401: 1, other_schemes: 0, unavailable: 0, bad_request: 0, failed: 0 },
      unreadable: { count: 0, first: [] },
      unknownOperations: {},
    });
    expect(report.byOperation).toEqual({
      'DELETE /users/{userId}': counts(1, 1),
      'GET /transfers': counts(1, 1),
      'GET /users': counts(3, 2, 1),
      'GET /users/{userId}': counts(4, 4),
      'PUT /users/{userId}': counts(1, 0, 0, 1),
    });
    expect(report.byRole).toEqual({ admin: counts(2, 2), 'admin,user': counts(1, 1), anonymous: counts(1, 1), user: counts(6, 4, 1, 1) });
    const example = { decisionId: expect.stringMatching(/^[0-9a-f-]{36}$/), timestamp: expect.stringMatching(/^2\d{3}-/), at: expect.stringMatching(/decisions\.ndjson:\d+$/) };
    expect(report.examples).toEqual({
      widened: [{ ...example, operation: 'GET /users', role: 'user', before: { allow: false, attributes: [] }, after: { allow: true, attributes: ['id', 'name'] } }],
      narrowed: [{ ...example, operation: 'PUT /users/{userId}', role: 'user', before: { allow: true, attributes: ['email', 'name'] }, after: { allow: false, attributes: [] } }],
      changed: [],
    });
    // The examples point at their own lines of the log.
    const lines = readFileSync(LOG, 'utf8').split('\n');
    for (const found of [...report.examples.widened, ...report.examples.narrowed]) {
      const line = Number(/:(\d+)$/.exec(found.at)![1]);
      expect(JSON.parse(lines[line - 1]!)).toMatchObject({ decision_id: found.decisionId, operation: found.operation });
    }
    // The log holds the account id (a claim and a parameter value); the report does not.
    expect(lines.join('\n')).toContain(ACCOUNT);
    expect(run.stdout).not.toContain(ACCOUNT);
  });

  test('text: totals, the reasons counted apart, the tables and the examples, without claims or parameter values', async () => {
    const run = await replay('--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^replayed 10 of 13 events from 1 file with the ACL .*candidate\.json \(revision [0-9a-f]{16}\):\n  same 8, widened 1, narrowed 1, changed 0\n/);
    expect(run.stdout).toContain('skipped: 3\n  shadow 2 (shadow divergence events, which repeat a decision logged already)\n  refused_401 1 (refused with 401 before any decision)\n');
    expect(run.stdout).not.toContain('not replayable');
    expect(run.stdout).toMatch(/\n {2}PUT \/users\/\{userId\} +1 +0 +0 +1 +0\n/);
    expect(run.stdout).toMatch(/\n {2}user +6 +4 +1 +1 +0\n/);
    expect(run.stdout).toMatch(/\nwidened: 1\n {2}[0-9a-f-]{36} \S+ \(\S+decisions\.ndjson:\d+\): user on GET \/users: deny -> allow \["id","name"\]\n/);
    expect(run.stdout).toMatch(/\nnarrowed: 1\n {2}[0-9a-f-]{36} \S+ \(\S+decisions\.ndjson:\d+\): user on PUT \/users\/\{userId\}: allow \["email","name"\] -> deny\n/);
    expect(run.stdout).not.toContain(ACCOUNT);
  });

  test('--fail-on: exit 1 on the kind of change found, 0 when none of that kind was', async () => {
    const both = ['--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE];
    expect((await replay(...both, '--fail-on', 'narrow')).code).toBe(1);
    expect((await replay(...both, '--fail-on', 'widen')).code).toBe(1);
    const revoking = ['--openapi', EXAMPLE_OPENAPI, '--acl', aclFile('revoke.json', revokeOnly)];
    const narrowed = await replay(...revoking, '--fail-on', 'widen', '--json');
    expect(narrowed.code).toBe(0);
    expect(JSON.parse(narrowed.stdout)).toMatchObject(counts(10, 9, 0, 1));
    expect((await replay(...revoking, '--fail-on', 'narrow')).code).toBe(1);
    expect((await replay(...revoking, '--fail-on', 'change')).code).toBe(1);
    const unchanged = await replay('--openapi', EXAMPLE_OPENAPI, '--acl', aclFile('same.json'), '--fail-on', 'change');
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toContain('  same 10, widened 0, narrowed 0, changed 0\n');
  });

  test('--bundle: the candidate a bundle holds decides as its ACL does; a signed bundle needs its key', async () => {
    const plain = join(dir, 'candidate.tar.gz');
    writeFileSync(plain, await exampleBundle({ revision: 'next', edit: revokeAndGrant }));
    const fromBundle = await replay('--bundle', plain, '--json');
    expect(fromBundle.code).toBe(0);
    expect(JSON.parse(fromBundle.stdout)).toMatchObject({ candidate: { from: 'bundle', revision: 'next' }, ...counts(10, 8, 1, 1) });
    // With --openapi, the bundle must decide exactly the document's operations, as a bundleConsumer checks.
    expect(JSON.parse((await replay('--bundle', plain, '--openapi', EXAMPLE_OPENAPI, '--json')).stdout)).toMatchObject(counts(10, 8, 1, 1));
    const otherApi = join(dir, 'other-api.json');
    writeFileSync(otherApi, JSON.stringify({ openapi: '3.0.3', info: { title: 'o', version: '1' }, security: [{ bearerAuth: [] }], components: { securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer' } } }, paths: { '/users': { get: {} } } }));
    const mismatch = await replay('--bundle', plain, '--openapi', otherApi);
    expect(mismatch.code).toBe(2);
    expect(mismatch.stderr).toMatch(/^svcgate: .*candidate\.tar\.gz at \$: the bundle does not match the OpenAPI document: .*"GET \/users\/\{userId\}" is in the bundle but not in the OpenAPI document/);

    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const signed = join(dir, 'signed.tar.gz');
    writeFileSync(signed, await exampleBundle({ revision: 'signed', edit: revokeAndGrant, signing: { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' } }));
    const keyFile = join(dir, 'public.pem');
    writeFileSync(keyFile, publicKey.export({ type: 'spki', format: 'pem' }));
    const unverified = await replay('--bundle', signed);
    expect(unverified.code).toBe(2);
    expect(unverified.stderr).toMatch(/the bundle is refused \(ERR_SVCGATE_BUNDLE_SIGNATURE\): the bundle is signed but no verification key is configured.*Fix: give --bundle-key <file>/);
    expect(JSON.parse((await replay('--bundle', signed, '--bundle-key', keyFile, '--json')).stdout)).toMatchObject({ candidate: { revision: 'signed' }, ...counts(10, 8, 1, 1) });
    // A key given, an unsigned bundle: refused, as a bundleConsumer with a key refuses it.
    const unsigned = await replay('--bundle', plain, '--bundle-key', keyFile);
    expect(unsigned.code).toBe(2);
    expect(unsigned.stderr).toMatch(/the bundle is not signed, and a verification key is configured/);
  });

  test('bad usage: one line on stderr and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['replay', '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE], /^svcgate: --decision-logs <file\|dir> is required/],
      [['replay', '--decision-logs', LOG], /^svcgate: a candidate is required: --acl <file> with --openapi <file>, or --bundle <file.tar.gz>/],
      [['replay', '--decision-logs', LOG, '--acl', CANDIDATE, '--bundle', 'x.tar.gz'], /not both/],
      [['replay', '--decision-logs', LOG, '--acl', CANDIDATE], /--openapi <file> is required/],
      [['replay', '--decision-logs', LOG, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--bundle-key', 'k.pem'], /--bundle-key and --bundle-alg go with --bundle/],
      [['replay', '--decision-logs', LOG, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--fail-on', 'wider'], /--fail-on must be one of widen, narrow, change/],
      [['replay', '--decision-logs', LOG, '--bundle', 'x.tar.gz', '--scheme', 'bearerAuth'], /--scheme goes with --openapi <file>/],
      [['replay', '--decision-logs', 'https://logs.example/2026-11-26.ndjson', '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE], /--decision-logs takes a file or folder, not a URL/],
      [['replay', '--decision-logs', join(dir, 'missing.ndjson'), '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE], /missing\.ndjson at \$: cannot read the decision logs \(ENOENT\)/],
      [['replay', '--decision-logs', LOG, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--acl-new', CANDIDATE], /^svcgate: replay takes no --acl-new/],
    ];
    for (const [args, message] of cases) {
      const run = await svcgate(...args);
      expect({ args, code: run.code, lines: run.stderr.trimEnd().split('\n').length }).toEqual({ args, code: 2, lines: 1 });
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  test('svcgate replay --help and svcgate --help name the command, its options and exit codes', async () => {
    const help = await svcgate('replay', '--help');
    expect(help.code).toBe(0);
    for (const option of ['--decision-logs <file|dir>', '--bundle <file.tar.gz>', '--bundle-key <file>', '--fail-on widen|narrow|change', '--json', '--strict']) expect(help.stdout).toContain(option);
    expect((await svcgate('--help')).stdout).toMatch(/svcgate replay --decision-logs <file\|dir>[^\n]*\n[\s\S]*1 explain: denied, diff and replay: a change --fail-on names/);
  });
});

describe('svcgate replay on the decisions of a list operation (x-acl-list)', () => {
  const listLog = join(dir, 'orders.ndjson');

  beforeAll(async () => {
    const app = express();
    app.use(bearerJwtAcl({ openapi: LIST_OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: LIST_ACL }, decisionLog: (event) => appendFileSync(listLog, `${JSON.stringify(event)}\n`) }));
    app.use((_req, res) => res.json({ ok: true }));
    const customer = await token({ role: 'customer', orders: [7, '9'] });
    await sendCalls(app, [
      ['get', '/orders', await token({ role: 'support' }), 200],
      ['get', '/orders', customer, 200],
      ['get', '/orders/7', customer, 200],
      ['get', '/orders', await token({ role: 'guest' }), 403],
    ]);
  });

  test("the logged plans (typed values) are read back and compared with the candidate's: the same ACL changes nothing", async () => {
    const same = join(dir, 'orders-same.json');
    writeFileSync(same, JSON.stringify(LIST_ACL));
    const run = await svcgate('replay', '--decision-logs', listLog, '--openapi', LIST_OPENAPI, '--acl', same, '--json', '--fail-on', 'change');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ events: 4, ...counts(4, 4), notReplayable: { malformed_result: 0 } });
  });

  test('a candidate that changes the items: support lists nothing now, a customer sees more of its orders', async () => {
    const candidate = join(dir, 'orders-candidate.json');
    writeFileSync(candidate, JSON.stringify(LIST_CANDIDATE));
    const run = await svcgate('replay', '--decision-logs', listLog, '--openapi', LIST_OPENAPI, '--acl', candidate, '--json');
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ...counts(4, 1, 2, 1), byOperation: { 'GET /orders': counts(3, 1, 1, 1), 'GET /orders/{orderId}': counts(1, 0, 1) } });
    expect(report.examples.narrowed).toEqual([expect.objectContaining({ role: 'support', operation: 'GET /orders', before: { allow: true, attributes: ['*'], list: 'all' }, after: { allow: false, attributes: [], list: 'none' } })]);
    expect(report.examples.widened[0]).toMatchObject({ role: 'customer', operation: 'GET /orders', before: { allow: true, attributes: ['!internalNote', '*'], list: 'some' }, after: { allow: true, attributes: ['*'], list: 'some' } });
    // The plan's values are the customer's claim: not in the report.
    expect(run.stdout).not.toContain('anyOf');
  });
});
