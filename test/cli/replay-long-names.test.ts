import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGzip } from 'node:zlib';
import { EXAMPLE_OPENAPI, examplePermissions } from '../helpers/bundles';
import { SVCGATE_BIN } from '../helpers/svcgate-cli';
import { peakMemoryScript } from '../helpers/peak-memory';

// Roles and unknown operations are names the logs choose: the report counted up to 1000 of each
// by name, but each name whole. A role claim of almost a megabyte (a line may hold one) on a
// thousand events kept a gigabyte of names, and --json printed them. Names are cut, as messages
// cut what they quote.

jest.setTimeout(120_000);

const dir = mkdtempSync(join(tmpdir(), 'svcgate-replay-names-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const run = promisify(execFile);

const NAME_BYTES = 900 * 1024;
const EVENTS = 150;

test('roles, unknown operations and an example\'s decision_id of almost a megabyte each: cut, in bounded memory', async () => {
  const acl = join(dir, 'same.json');
  writeFileSync(acl, JSON.stringify(examplePermissions()));
  const logs = join(dir, 'long-names.ndjson.gz');
  const gzip = createGzip();
  const written = new Promise<void>((resolve, reject) => gzip.pipe(createWriteStream(logs)).on('finish', () => resolve()).on('error', reject));
  const long = 'r'.repeat(NAME_BYTES);
  const result = { allow: false, attributes: [], role: null, possession: null, scopes: [], reasons: ['no grant'] };
  for (let i = 0; i < EVENTS; i += 1) {
    const role = `${String(i).padStart(4, '0')}${long}`;
    const input = { operation: 'GET /users/{userId}', role, params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } };
    gzip.write(`${JSON.stringify({ decision_id: `d-${i}`, path: 'svcgate/authz/decision', input, result })}\n`);
    gzip.write(`${JSON.stringify({ decision_id: `u-${i}`, path: 'svcgate/authz/decision', input: { ...input, role: 'user', operation: `GET /${role}` }, result })}\n`);
  }
  // Widened (the recorded deny of user 3 reading user 3 is an allow now): an example, with its decision_id.
  const widened = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } };
  gzip.write(`${JSON.stringify({ decision_id: long.slice(0, 400_000), timestamp: long.slice(0, 400_000), path: 'svcgate/authz/decision', input: widened, result })}\n`);
  gzip.end();
  await written;

  const peakFile = join(dir, 'peak');
  const peak = peakMemoryScript(dir);
  const args = ['--require', peak, SVCGATE_BIN, 'replay', '--decision-logs', logs, '--openapi', EXAMPLE_OPENAPI, '--acl', acl, '--json'];
  const { stdout } = await run(process.execPath, args, { timeout: 110_000, maxBuffer: 512 * 1024 * 1024, env: { ...process.env, SVCGATE_PEAK_FILE: peakFile } });
  const report = JSON.parse(stdout);

  expect(report.replayed).toBe(EVENTS + 1);
  expect(report.notReplayable.unknown_operation).toBe(EVENTS);
  const names = [...Object.keys(report.byRole), ...Object.keys(report.unknownOperations)];
  expect(names).toHaveLength(2 * EVENTS + 1);
  const [example] = report.examples.widened;
  expect([example.decisionId.length, example.timestamp.length]).toEqual([203, 203]);
  expect(Math.max(...names.map((name) => name.length))).toBeLessThanOrEqual(210);
  expect(stdout.length).toBeLessThan(1024 * 1024);
  // Whole names peaked at 1.2 GiB (150 of 900 KiB, twice, and their copies in the report); cut, at 290 MiB (lines of 900 KiB read).
  expect(Number(readFileSync(peakFile, 'utf8')) / 1024).toBeLessThan(600);
});
