import { execFile, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { createGzip, gzipSync } from 'node:zlib';
import { EXAMPLE_OPENAPI, examplePermissions } from '../helpers/bundles';
import { counts } from '../helpers/replay-fixture';
import { SVCGATE_BIN } from '../helpers/svcgate-cli';
import { peakMemoryScript } from '../helpers/peak-memory';

// `svcgate replay` (issue 32, item 2) on logs as they come: every kind of event counted under its
// reason, lines that are no event counted with where they are, and hostile files (gzip bombs, an
// endless line, a cut gzip, a device, thousands of files) answered clearly in bounded memory.
const dir = mkdtempSync(join(tmpdir(), 'svcgate-replay-inputs-'));
const ACL = join(dir, 'same.json');
/** Loaded by every run: writes the run's peak resident memory, in KiB (see peakMemoryScript). */
let PEAK = '';
const run = promisify(execFile);

beforeAll(() => {
  writeFileSync(ACL, JSON.stringify(examplePermissions()));
  PEAK = peakMemoryScript(dir);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;

/** `svcgate replay --decision-logs <logs> --openapi ... --acl <same as recorded>`, with the run's peak memory in MiB. */
async function replay(logs: string, ...options: string[]): Promise<{ code: number; stdout: string; stderr: string; peakMiB: number }> {
  const peakFile = join(dir, `peak-${runs++}`);
  const args = ['--require', PEAK, SVCGATE_BIN, 'replay', '--decision-logs', logs, '--openapi', EXAMPLE_OPENAPI, '--acl', ACL, ...options];
  let result: { code: number; stdout: string; stderr: string };
  try {
    result = { code: 0, ...(await run(process.execPath, args, { timeout: 120_000, env: { ...process.env, SVCGATE_PEAK_FILE: peakFile }, maxBuffer: 64 * 1024 * 1024 })) };
  } catch (error) {
    result = error as { code: number; stdout: string; stderr: string };
  }
  return { ...result, peakMiB: Number(readFileSync(peakFile, 'utf8')) / 1024 };
}

async function json(logs: string, ...options: string[]) {
  const done = await replay(logs, '--json', ...options);
  expect({ code: done.code, stderr: done.stderr.replace(/\(node:\d+\) \[SVCGATE_REPLAY_\w+\].*\n/g, '').replace(/.*trace-warnings.*\n/, '') }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(done.stdout);
}

const OWN_READ = { allow: true, attributes: ['*', '!password'], role: 'user', possession: 'own', scopes: [], reasons: [] };
const DENY = { allow: false, attributes: [], role: null, possession: null, scopes: [], reasons: ['no grant'] };
const USER_3 = { operation: 'GET /users/{userId}', role: 'user', params: { 'path:userId': ['3'] }, claims: { 'path:userId': ['3'] } };

/** An event of svcgate's decision log: user 3 reads user 3, allowed as the recorded permissions allow it. */
function event(over: Record<string, unknown> = {}): Record<string, unknown> {
  return { decision_id: `d-${Math.random().toString(16).slice(2)}`, path: 'svcgate/authz/decision', input: USER_3, result: OWN_READ, timestamp: '2026-11-27T05:00:00.000Z', ...over };
}

const line = (value: unknown) => JSON.stringify(value);

describe('each event is counted under what it is', () => {
  test('replayed, skipped, not replayable and unreadable, each with its reason; __proto__ is a role like any other', async () => {
    const file = join(dir, 'classes.ndjson');
    const lines = [
      line(event()),
      line(event({ path: 'data.svcgate.authz.decision' })),
      line(event({ path: '/svcgate/authz/decision/' })),
      line(event({ shadow: { result: DENY, policy_revision: 'p', data_revision: 'd', change: 'narrowed' } })),
      line(event({ path: 'svcgate/acl' })),
      line(event({ input: { operation: USER_3.operation }, result: { ...DENY, reasons: ['invalid_token: jwt expired'] }, status: 401 })),
      line(event({ input: { operation: 'GET /users' }, result: { ...OWN_READ, attributes: [] }, other_schemes: ['apiKey'] })),
      line(event({ result: { ...DENY, unavailable: { retryAfterSeconds: 1 } } })),
      line(event({ result: { ...DENY, reasons: ['bad request: path parameter userId is read two ways'] } })),
      line(event({ input: { operation: USER_3.operation }, result: { ...DENY, reasons: ['authorization failed: boom'] } })),
      line(event({ input: undefined, erased: ['/input'] })),
      line(event({ result: { ...OWN_READ, allow: '***' }, masked: ['/result/allow'] })),
      line(event({ erased: 'everything' })),
      line(event({ erased: ['/labels/team'] })),
      line(event({ result: undefined })),
      line(event({ input: { operation: 7 } })),
      line(event({ result: { allow: 'yes' } })),
      line(event({ input: { operation: 'GET /gone' } })),
      // With checkOwnership the guard logs `checks: {}` when the first answer needed no checks: a
      // candidate that grants only `own` would have run them, with results nobody recorded.
      line(event({ input: { ...USER_3, claims: {}, checks: {} }, result: { ...OWN_READ, role: 'admin', possession: 'any' } })),
      `{"decision_id":"proto","path":"svcgate/authz/decision","input":{"__proto__":{"role":"admin"},"operation":"GET /users","role":"__proto__"},"result":${line(DENY)}}`,
      line(event({ input: { ...USER_3, role: ['user', 'admin'] } })),
      'not json',
      '',
      '42',
      'null',
      '"a string"',
      `[${line(event())}, 7]  \r`,
      '   ',
    ];
    writeFileSync(file, Buffer.concat([Buffer.from(`${lines.join('\n')}\n`), Buffer.from([0xc3, 0x28, 0x0a])]));
    const report = await json(file);
    expect(report).toMatchObject({
      events: 22,
      ...counts(7, 7),
      skipped: { shadow: 1, other_path: 1, refused_401: 1, other_schemes: 1, unavailable: 1, bad_request: 1, failed: 1 },
      notReplayable: { masked: 3, incomplete: 2, malformed_result: 1, unknown_operation: 1, ownership_unchecked: 1 },
      unknownOperations: { 'GET /gone': 1 },
    });
    // Read as JSON: an object literal's __proto__ would set the prototype, not a key.
    expect(report.byRole).toEqual(JSON.parse(JSON.stringify({ 'admin,user': counts(1, 1), user: counts(5, 5) }).replace('{', `{"__proto__":${JSON.stringify(counts(1, 1))},`)));
    expect(Object.keys(report.byRole)).toContain('__proto__');
    expect(report.unreadable).toEqual({
      count: 6,
      first: [
        { at: `${file}:22`, problem: 'not valid JSON' },
        { at: `${file}:24`, problem: 'not an event: a JSON number, where an event is an object' },
        { at: `${file}:25`, problem: 'not an event: a JSON null, where an event is an object' },
        { at: `${file}:26`, problem: 'not an event: a JSON string, where an event is an object' },
        { at: `${file}:27[1]`, problem: 'not an event: a JSON number, where an event is an object' },
        { at: `${file}:29`, problem: 'not UTF-8 text' },
      ],
    });
    // The text names each reason, and --strict turns the unreadable lines into exit 1.
    const text = await replay(file, '--strict');
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('not replayable: 8\n  masked 3 (input or result erased or masked, never decided on a guess)\n  incomplete 2 ');
    expect(text.stdout).toContain(`unreadable: 6 (lines or elements that are no event)\n  ${file}:22: not valid JSON\n`);
    expect(text.stderr).toMatch(/\[SVCGATE_REPLAY_UNREADABLE\] Warning: 6 lines or elements of the decision logs are no event/);
    expect(text.stderr).toMatch(/svcgate: --strict: 1 warning \(SVCGATE_REPLAY_UNREADABLE\), so the exit code is 1/);
  });

  test('a candidate that asks for scopes the recorded inputs do not show: an allow is not replayable, a deny stays a deny', async () => {
    const file = join(dir, 'scopes.ndjson');
    const otherUser = { ...USER_3, params: { 'path:userId': ['4'] } };
    writeFileSync(file, `${line(event())}\n${line(event({ input: otherUser, result: { ...DENY, role: 'user', possession: 'own' } }))}\n`);
    // The same ACL, each operation needing the scope write too: the token may have held it, or not.
    const report = await json(file, '--required-scopes', 'write');
    expect(report).toMatchObject({ events: 2, ...counts(1, 1), notReplayable: { scopes_unrecorded: 1 } });
    expect((await replay(file, '--required-scopes', 'write')).stdout).toContain('  scopes_unrecorded 1 (the candidate asks for scopes the recorded input does not show)\n');
  });

  test('a .json file is one document: one event pretty-printed is read, events one per line are one unreadable entry that says why', async () => {
    const pretty = join(dir, 'one.json');
    writeFileSync(pretty, JSON.stringify(event(), null, 2));
    expect(await json(pretty)).toMatchObject({ events: 1, ...counts(1, 1) });
    const lines = join(dir, 'lines.json');
    writeFileSync(lines, `${line(event())}\n${line(event())}\n`);
    expect((await json(lines)).unreadable).toEqual({ count: 1, first: [{ at: lines, problem: 'not valid JSON (the file is read as one JSON document; one event per line is NDJSON: name it .ndjson)' }] });
  });

  test('--decision-logs - reads standard input, gzip or not', () => {
    const logs = `${line(event())}\n${line(event({ result: { ...OWN_READ, attributes: ['*'] } }))}\n`;
    for (const input of [Buffer.from(logs), gzipSync(logs)]) {
      const piped = spawnSync(process.execPath, [SVCGATE_BIN, 'replay', '--decision-logs', '-', '--openapi', EXAMPLE_OPENAPI, '--acl', ACL, '--json', '--fail-on', 'narrow'], { input, encoding: 'utf8' });
      expect(piped.status).toBe(1);
      expect(JSON.parse(piped.stdout)).toMatchObject({ ...counts(2, 1, 0, 1), examples: { narrowed: [{ at: '<stdin>:2', before: { allow: true, attributes: ['*'] }, after: { allow: true, attributes: ['!password', '*'] } }] } });
    }
  });
});

describe('hostile and large inputs: a clear answer in bounded memory', () => {
  // The same command on two events: the runtime, the compiled ACL and the evaluator, on this machine
  // now; memory is bounded against it, not against a fixed number.
  let baseline = 0;
  beforeAll(async () => {
    const small = join(dir, 'small.ndjson');
    writeFileSync(small, `${line(event())}\n${line(event())}\n`);
    baseline = (await replay(small, '--json')).peakMiB;
  }, 60_000);

  /** gzip of `members` copies of one compressed member: as many bytes again each, for the cost of compressing one. */
  function gzipMembers(member: Buffer, members: number, prefix = Buffer.alloc(0)): Buffer {
    return Buffer.concat([...(prefix.length > 0 ? [gzipSync(prefix)] : []), ...Array.from({ length: members }, () => member)]);
  }

  test('a gzip bomb read as lines stops at 1 GiB decompressed, exit 2 naming the file', async () => {
    const file = join(dir, 'bomb.ndjson.gz');
    // 17 members of 64 MiB of newlines: 1.06 GiB of blank lines from 1 MiB of gzip.
    writeFileSync(file, gzipMembers(gzipSync(Buffer.alloc(64 * 1024 * 1024, '\n'), { level: 9 }), 17, Buffer.from(`${line(event())}\n`)));
    expect(readFileSync(file).length).toBeLessThan(2 * 1024 * 1024);
    const done = await replay(file);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/^svcgate: \S*bomb\.ndjson\.gz at \$: decompressed, the file is over the limit of 1073741824 bytes \(a gzip bomb, or logs to split\)\. Fix: /);
    expect(done.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(done.peakMiB - baseline).toBeLessThan(180);
  }, 120_000);

  test('a gzip bomb that is one JSON document stops at 64 MiB, exit 2 naming the file', async () => {
    const file = join(dir, 'batch.json.gz');
    const zeros = createWriteStream(file);
    await pipeline(
      (async function* () {
        yield Buffer.from('[');
        for (let i = 0; i < 96; i++) yield Buffer.alloc(1024 * 1024, ' ');
      })(),
      createGzip({ level: 9 }),
      zeros,
    );
    const done = await replay(file);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/^svcgate: \S*batch\.json\.gz at \$: the file is one JSON document over the limit of 67108864 bytes, which is read whole\. Fix: write the events one per line \(NDJSON\)/);
    expect(done.peakMiB - baseline).toBeLessThan(330);
  }, 60_000);

  test('a 10 MiB line is counted as unreadable and read past, plain or gzip; the events around it are replayed', async () => {
    const huge = `{"decision_id":"huge","path":"svcgate/authz/decision","input":{"operation":"GET /users","pad":"${'x'.repeat(10 * 1024 * 1024)}"}}`;
    const text = `${line(event())}\n${huge}\n${line(event())}\n`;
    for (const [name, bytes] of [['huge.ndjson', Buffer.from(text)], ['huge.log.gz', gzipSync(text)]] as const) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const done = await replay(file, '--json');
      expect(done.code).toBe(0);
      expect(JSON.parse(done.stdout)).toMatchObject({ events: 2, ...counts(2, 2), unreadable: { count: 1, first: [{ at: `${file}:2`, problem: 'a line longer than 1048576 bytes' }] } });
      // Read past, not held: about its own size in read buffers beside the baseline (10 MiB measured), where
      // holding it whole, joined and parsed, takes several times that.
      expect(done.peakMiB - baseline).toBeLessThan(48);
    }
  }, 60_000);

  test('a gzip file cut short, a device and a broken link: exit 2, one line naming the file', async () => {
    const cut = join(dir, 'cut.ndjson.gz');
    const whole = gzipSync(Array.from({ length: 200 }, () => line(event())).join('\n'));
    writeFileSync(cut, whole.subarray(0, whole.length - 40));
    const link = join(dir, 'gone.ndjson');
    symlinkSync(join(dir, 'nowhere.ndjson'), link);
    const cases: [string, RegExp][] = [
      [cut, /cut\.ndjson\.gz at \$: the file starts as gzip but does not decompress \(Z_BUF_ERROR: unexpected end of file\)\. Fix: give the whole file/],
      ['/dev/zero', /\/dev\/zero at \$: the decision logs are a device or socket, not a file/],
      [link, /gone\.ndjson at \$: cannot read the decision logs \(ENOENT\)/],
      [join(ACL, 'x.ndjson'), /same\.json\/x\.ndjson at \$: cannot read the decision logs \(ENOTDIR\)/],
    ];
    for (const [logs, message] of cases) {
      const done = await replay(logs);
      expect({ logs, code: done.code, lines: done.stderr.trimEnd().split('\n').length }).toEqual({ logs, code: 2, lines: 1 });
      expect(done.stderr).toMatch(message);
    }
  });

  test('a folder: its log files in name order (gzip found by its bytes), subfolders and other files left out and listed; thousands of files', async () => {
    const folder = join(dir, 'logs');
    mkdirSync(join(folder, 'sub'), { recursive: true });
    // A narrowing decision in b (written first) and in a: the first example is a's, the first name.
    const narrowing = line(event({ input: { operation: 'GET /users', role: 'user', params: {}, claims: {} }, result: { ...OWN_READ, possession: 'any', attributes: ['*'] } }));
    writeFileSync(join(folder, 'b.ndjson'), `${narrowing}\n`);
    writeFileSync(join(folder, 'a.ndjson'), `${narrowing}\n`);
    writeFileSync(join(folder, 'c.json'), gzipSync(JSON.stringify([event(), event()])));
    writeFileSync(join(folder, 'd.jsonl.gz'), gzipSync(`${line(event())}\n`));
    writeFileSync(join(folder, 'sub', 'e.ndjson'), `${line(event())}\n`);
    writeFileSync(join(folder, 'README.txt'), 'not logs\n');
    for (let i = 0; i < 3000; i++) writeFileSync(join(folder, `f-${String(i).padStart(4, '0')}.ndjson`), `${line(event())}\n`);
    const report = await json(folder);
    expect(report).toMatchObject({ files: { read: 3004, leftOutCount: 2 }, events: 3005, ...counts(3005, 3003, 0, 2) });
    expect(report.files.leftOut).toEqual([
      { name: join(folder, 'README.txt'), why: 'not a log file name' },
      { name: join(folder, 'sub'), why: 'folder' },
    ]);
    expect(report.examples.narrowed.map((example: { at: string }) => example.at)).toEqual([`${join(folder, 'a.ndjson')}:1`, `${join(folder, 'b.ndjson')}:1`]);
    const text = await replay(folder);
    expect(text.stdout).toContain(`left out of the folder: ${join(folder, 'README.txt')} (not a log file name), ${join(folder, 'sub')} (folder)\n`);
  }, 60_000);
});
