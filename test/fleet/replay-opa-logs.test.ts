import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { createDecisionLogUploader, remoteOpa } from '../../src/fleet';
import { EXAMPLE_OPENAPI, exampleBundle, examplePermissions, type Permissions } from '../helpers/bundles';
import { LogCollector } from '../helpers/log-collector';
import { startOpa, type OpaServer } from '../helpers/opa-server';
import { LIST_ACL, LIST_OPENAPI } from '../helpers/list-callers';
import { counts, LIST_CANDIDATE, revokeAndGrant, sendCalls, type RecordedCall } from '../helpers/replay-fixture';
import { svcgate } from '../helpers/svcgate-cli';
import { HS256, token } from '../helpers/tokens';

// `svcgate replay` (issue 32, item 2) on what a real `opa run` uploads: its decision_logs plugin
// POSTs gzip JSON arrays of events to a collector on 127.0.0.1, written to files byte for byte as
// they arrived, while bearerJwtAcl asks that OPA for every decision (remoteOpa). Then masked: by
// OPA's own mask policy, and by svcgate's uploader.
const dir = mkdtempSync(join(tmpdir(), 'svcgate-replay-opa-'));
const BUNDLE = join(dir, 'active.tar.gz');
const CANDIDATE = join(dir, 'candidate.json');

beforeAll(async () => {
  writeFileSync(BUNDLE, await exampleBundle({ revision: 'active' }));
  writeFileSync(CANDIDATE, JSON.stringify(examplePermissions(revokeAndGrant)));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The requests of the example API's tests, each with the answer the active permissions give: six decisions. */
async function exampleCalls(): Promise<RecordedCall[]> {
  const user = await token({ role: 'user', userId: 3 });
  const admin = await token({ role: 'admin' });
  return [
    ['get', '/api/v1/users/3', user, 200],
    ['get', '/api/v1/users/4', user, 403],
    ['put', '/api/v1/users/3', user, 200],
    ['get', '/api/v1/users', user, 403],
    ['get', '/api/v1/users', admin, 200],
    ['get', '/api/v1/users', undefined, 401],
  ];
}

/** Each batch the collector received, as it arrived (gzip JSON), in a folder of its own; named .json: gzip is found by its bytes. */
function writeBatches(collector: LogCollector, name: string): string {
  const folder = join(dir, name);
  mkdirSync(folder);
  collector.batches.forEach((batch, index) => writeFileSync(join(folder, `upload-${String(index).padStart(3, '0')}.json`), batch.body));
  return folder;
}

async function loggingOpa(collector: LogCollector, bundles: string[]): Promise<OpaServer> {
  const origin = new URL(collector.url).origin;
  return startOpa(['--bundle', ...bundles, '--set', `services.collector.url=${origin}`, '--set', 'decision_logs.service=collector', '--set', 'decision_logs.reporting.min_delay_seconds=1', '--set', 'decision_logs.reporting.max_delay_seconds=1']);
}

/** The calls' decisions made by a real OPA serving the bundles (the example API's unless named), its uploads in a folder. */
async function opaUploads(name: string, options: { bundles?: string[]; openapi?: string; calls?: RecordedCall[] } = {}): Promise<{ folder: string; events: Record<string, unknown>[] }> {
  const calls = options.calls ?? (await exampleCalls());
  const collector = new LogCollector();
  await collector.start();
  const opa = await loggingOpa(collector, options.bundles ?? [BUNDLE]);
  try {
    const app = express();
    // No decision cache, and one check of OPA's data: every request is one decision OPA logs.
    app.use(bearerJwtAcl({ openapi: options.openapi ?? EXAMPLE_OPENAPI, handler: bearerJwt(HS256), policy: { bearerAuth: remoteOpa({ url: opa.url, decisionCacheSize: 0, checkIntervalSeconds: 3600 }) } }));
    app.use((_req, res) => res.json({ ok: true }));
    await sendCalls(app, calls);
    const decisions = () => collector.events.filter((event) => /^svcgate\/authz\/(decision|plan)$/.test(String(event.path))).length;
    for (let i = 0; decisions() < calls.length; i++) {
      if (i > 1000) throw new Error(`${decisions()} of ${calls.length} decisions uploaded`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await opa.stop();
    await collector.stop();
  }
  return { folder: writeBatches(collector, name), events: collector.events };
}


describe('svcgate replay on the decision logs a real opa run uploads', () => {
  test('every decision OPA made is replayed: the revoked permission narrows one, the granted one widens one', async () => {
    const { folder, events } = await opaUploads('plain');
    // OPA's own events: the path as svcgate's, the input remoteOpa sent, the policy's result.
    expect(events.find((event) => event.path === 'svcgate/authz/decision')).toMatchObject({ input: { operation: expect.any(String) }, result: { allow: expect.any(Boolean) }, decision_id: expect.any(String) });
    // remoteOpa's one read of OPA's data (GET /v1/data/svcgate/acl) is logged too, under another path.
    expect(events.filter((event) => event.path !== 'svcgate/authz/decision').map((event) => event.path)).toEqual(['svcgate/acl']);
    const run = await svcgate('replay', '--decision-logs', folder, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--json', '--fail-on', 'narrow');
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ events: 7, ...counts(6, 4, 1, 1), unreadable: { count: 0 }, notReplayable: { masked: 0 }, skipped: { other_path: 1 } });
    expect(report.files.read).toBeGreaterThan(0);
    expect(report.byOperation).toEqual({ 'GET /users': counts(3, 2, 1), 'GET /users/{userId}': counts(2, 2), 'PUT /users/{userId}': counts(1, 0, 0, 1) });
    expect(report.byRole).toEqual({ anonymous: counts(1, 1), admin: counts(1, 1), user: counts(4, 2, 1, 1) });
    expect(report.examples.widened).toEqual([expect.objectContaining({ operation: 'GET /users', role: 'user', before: { allow: false, attributes: [] }, after: { allow: true, attributes: ['id', 'name'] }, at: expect.stringMatching(/upload-\d{3}\.json\[\d+\]$/) })]);
    expect(report.examples.narrowed).toEqual([expect.objectContaining({ operation: 'PUT /users/{userId}', role: 'user', before: { allow: true, attributes: ['email', 'name'] }, after: { allow: false, attributes: [] } })]);
  });

  test("OPA's mask policy erased /input/claims/path:userId: those events are not replayable, the others are replayed", async () => {
    const mask = join(dir, 'mask-bundle');
    mkdirSync(mask);
    writeFileSync(join(mask, '.manifest'), JSON.stringify({ roots: ['system'] }));
    writeFileSync(join(mask, 'mask.rego'), 'package system.log\n\nmask contains "/input/claims/path:userId"\n');
    const { folder, events } = await opaUploads('masked', { bundles: [BUNDLE, mask] });
    expect(events.filter((event) => Array.isArray(event.erased))).toHaveLength(3);
    const run = await svcgate('replay', '--decision-logs', folder, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--json', '--fail-on', 'narrow');
    // The narrowed request (user's PUT on its own user) held the claim: not replayable, so nothing narrowed.
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ ...counts(3, 2, 1, 0), notReplayable: { masked: 3 } });
    expect(report.byOperation).toEqual({ 'GET /users': counts(3, 2, 1) });
    const text = await svcgate('replay', '--decision-logs', folder, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE);
    expect(text.stdout).toContain('not replayable: 3\n  masked 3 (input or result erased or masked, never decided on a guess)\n');
  });

  test("svcgate's uploader, masking /input/claims: its batches have OPA's shape, and every decision is counted as not replayable", async () => {
    const collector = new LogCollector();
    await collector.start();
    const uploader = createDecisionLogUploader({ url: collector.url, mask: ['/input/claims'], minDelaySeconds: 0.05, maxDelaySeconds: 0.1 });
    try {
      const app = express();
      app.use(bearerJwtAcl({ openapi: EXAMPLE_OPENAPI, handler: bearerJwt(HS256), acl: { bearerAuth: examplePermissions() }, decisionLog: uploader.log }));
      app.use((_req, res) => res.json({ ok: true }));
      await sendCalls(app, await exampleCalls());
      await uploader.flush();
    } finally {
      await uploader.close();
      await collector.stop();
    }
    const folder = writeBatches(collector, 'uploader');
    const run = await svcgate('replay', '--decision-logs', folder, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--json');
    expect(JSON.parse(run.stdout)).toMatchObject({ events: 6, ...counts(0, 0), notReplayable: { masked: 6 } });
    // --strict: a replay that compared nothing is no passing gate.
    const strict = await svcgate('replay', '--decision-logs', folder, '--openapi', EXAMPLE_OPENAPI, '--acl', CANDIDATE, '--strict');
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/SVCGATE_REPLAY_NOTHING/);
  });

  test("a list operation: OPA logs the plan rule's result, its values as the policy's strings, read back and compared with the candidate's", async () => {
    const ordersBundle = join(dir, 'orders.tar.gz');
    const asListAcl = (permissions: Permissions) => {
      for (const role of Object.keys(permissions)) delete permissions[role];
      Object.assign(permissions, LIST_ACL);
    };
    writeFileSync(ordersBundle, await exampleBundle({ revision: 'orders', openapi: LIST_OPENAPI, edit: asListAcl }));
    const customer = await token({ role: 'customer', orders: [7, '9'] });
    const { folder, events } = await opaUploads('orders', {
      bundles: [ordersBundle],
      openapi: LIST_OPENAPI,
      calls: [
        ['get', '/orders', await token({ role: 'support' }), 200],
        ['get', '/orders', customer, 200],
        ['get', '/orders/7', customer, 200],
        ['get', '/orders', await token({ role: 'guest' }), 403],
      ],
    });
    expect(events.find((event) => event.path === 'svcgate/authz/plan' && (event.result as { list?: { kind?: string } }).list?.kind === 'some')).toMatchObject({ result: { list: { anyOf: [{ orderId: ['7', '9'] }] } } });
    const same = join(dir, 'orders-same.json');
    writeFileSync(same, JSON.stringify(LIST_ACL));
    const unchanged = await svcgate('replay', '--decision-logs', folder, '--openapi', LIST_OPENAPI, '--acl', same, '--json', '--fail-on', 'change');
    expect(unchanged.code).toBe(0);
    expect(JSON.parse(unchanged.stdout)).toMatchObject({ ...counts(4, 4), notReplayable: { malformed_result: 0 }, skipped: { other_path: 1 } });
    const candidate = join(dir, 'orders-candidate.json');
    writeFileSync(candidate, JSON.stringify(LIST_CANDIDATE));
    const changed = JSON.parse((await svcgate('replay', '--decision-logs', folder, '--openapi', LIST_OPENAPI, '--acl', candidate, '--json')).stdout);
    expect(changed).toMatchObject({ ...counts(4, 1, 2, 1), byOperation: { 'GET /orders': counts(3, 1, 1, 1), 'GET /orders/{orderId}': counts(1, 0, 1) } });
    expect(changed.examples.narrowed).toEqual([expect.objectContaining({ role: 'support', before: { allow: true, attributes: ['*'], list: 'all' }, after: { allow: false, attributes: [], list: 'none' } })]);
  });
});
