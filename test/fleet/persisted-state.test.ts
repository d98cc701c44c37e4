import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { consumerFixture, ownerRead, withoutUserRead } from '../helpers/consumer-fixture';
import { exampleBundle } from '../helpers/bundles';
import { entry, runScript } from '../helpers/node-script';
import { FAST_POLLING } from '../helpers/watched-consumer';

// SPEC 9.2: what is persisted beside a bundle is one unit with it; persisting never changes what
// is active, and its failure is its own event and code.

jest.setTimeout(60_000);

const fixture = consumerFixture();
const consumer = (persistDir: string, options: { maxAgeSeconds?: number } = {}) => fixture.consumer({ persistDir, ...options });
const tempDir = () => fixture.tempDir();

const temporaryFiles = (dir: string) => readdirSync(join(dir, 'svcgate')).filter((file) => file.endsWith('.tmp'));
/** The persisted bundle files, each named by the SHA-256 of its bytes. */
const bundleFiles = (dir: string) => readdirSync(join(dir, 'svcgate')).filter((file) => /^bundle-[0-9a-f]{64}\.tar\.gz$/.test(file));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('a disk that fills up while a new revision is activated (a real process, files capped at 16 KiB)', () => {
  let persistDir: string;
  let events: { type: string; revision: string | null; code?: string }[];
  let leftovers: string[];

  beforeEach(async () => {
    persistDir = tempDir();
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
    const first = consumer(persistDir);
    await first.next('activated');
    first.policy.close();

    // The replica that meets the full disk: v2 (63 KB) cannot be written, a check record (150 bytes) can.
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2', edit: withoutUserRead }));
    const replica = runScript(
      `import { bundleConsumer } from ${entry('fleet')};
      const print = (event) => console.log(JSON.stringify({ type: event.type, revision: event.status.revision, code: event.error?.code }));
      bundleConsumer({ url: ${JSON.stringify(fixture.server.url('bundle.tar.gz'))}, persistDir: ${JSON.stringify(persistDir)}, polling: ${JSON.stringify(FAST_POLLING)}, onUpdate: print });
      setInterval(() => undefined, 1000);`,
      { fileSizeKiB: 16 },
    );
    try {
      // Three polls after v2 was activated, which the server answers 304.
      let polls = 0;
      const pollOnV2 = (line: string) => line === JSON.stringify({ type: 'unchanged', revision: 'v2' }) && ++polls === 3;
      await replica.line(pollOnV2);
    } finally {
      await replica.stop();
    }
    events = replica.lines.map((line) => JSON.parse(line));
    leftovers = temporaryFiles(persistDir);
  });

  test('the activation is reported as activated, the failed write as persist-failed with its own code, and no temporary file is left', () => {
    expect(events).toContainEqual({ type: 'activated', revision: 'v2' });
    expect(events).not.toContainEqual(expect.objectContaining({ type: 'failed' }));
    expect(events).toContainEqual({ type: 'persist-failed', revision: 'v2', code: 'ERR_SVCGATE_BUNDLE_PERSIST' });
    expect(leftovers).toEqual([]);
  });

  test('after space is freed and the replica restarts, the old revision does not pass for the new one', async () => {
    const restarted = consumer(persistDir);
    // It may boot v1 (the record beside it is v1's own), but then it must learn of v2 from the
    // server, not take a 304 for v1 and keep deciding with it.
    let event = await restarted.nextOf('activated', 'unchanged', 'failed', 'persist-failed');
    if (event.type === 'activated' && event.status.activatedFrom === 'persisted') event = await restarted.nextOf('activated', 'unchanged', 'failed', 'persist-failed');
    expect(event).toMatchObject({ type: 'activated', status: { revision: 'v2', activatedFrom: 'server', ready: true } });
    expect(await ownerRead(restarted.policy)).toBe(403);
  });
});

test('a record whose bundle file does not hold the bytes its name says boots as nothing persisted, never as another bundle under its ETag', async () => {
  const persistDir = tempDir();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const v1 = consumer(persistDir);
  await v1.next('activated');
  v1.policy.close();
  const v1Bytes = readFileSync(join(persistDir, 'svcgate', bundleFiles(persistDir)[0]!));
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2', edit: withoutUserRead }));
  const v2 = consumer(persistDir);
  // v1 from the persisted copy first, then v2 from the server, committed before its event.
  while ((await v2.next('activated')).status.revision !== 'v2');
  v2.policy.close();
  // Committing v2 removed v1's file; v2's record and file are all that is left. Then v1's bytes under v2's name.
  expect(bundleFiles(persistDir)).toEqual([`bundle-${sha256(readFileSync(join(persistDir, 'svcgate', bundleFiles(persistDir)[0]!)))}.tar.gz`]);
  writeFileSync(join(persistDir, 'svcgate', bundleFiles(persistDir)[0]!), v1Bytes);

  const requestsBefore = fixture.server.log.length;
  const restarted = consumer(persistDir);
  const first = await restarted.nextOf('activated', 'persist-failed');
  expect(first).toMatchObject({ type: 'persist-failed', error: { code: 'ERR_SVCGATE_BUNDLE_PERSIST' }, status: { revision: null, ready: false } });
  expect((first as { error: { message: string } }).error.message).toMatch(/persisted bundle was not used: .*bundle-[0-9a-f]{64}\.tar\.gz does not hold the bytes its name says/);
  // Nothing decides until the server is asked, and the server's answer is a download, not a 304 for v1.
  expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v2', activatedFrom: 'server' });
  expect(fixture.server.log[requestsBefore]).toBe('200 /bundle.tar.gz');
  expect(await ownerRead(restarted.policy)).toBe(403);
});

describe('a bundle written whose record was not (a crash or a full disk between the two writes)', () => {
  // v2 (revoking, built later) was activated and its file written; its record never followed, so
  // the record still names v1. The server then serves v1 again: a rollback, whoever published it.
  const EARLIER = new Date('2026-11-20T09:00:00.000Z');
  const LATER = new Date('2026-11-25T17:30:00.000Z');

  async function persistedFolder(revision: string, builtAt: Date, edit?: typeof withoutUserRead): Promise<string> {
    const dir = tempDir();
    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision, builtAt, edit }));
    const run = consumer(dir);
    await run.next('activated');
    run.policy.close();
    return dir;
  }

  test.each([
    ['its record write failed: v2\'s file beside v1\'s record and file', (v1Dir: string, v2Dir: string) => cpSync(join(v2Dir, 'svcgate', bundleFiles(v2Dir)[0]!), join(v1Dir, 'svcgate', bundleFiles(v2Dir)[0]!))],
    ['its record names no file on disk', (v1Dir: string, v2Dir: string) => {
      cpSync(join(v2Dir, 'svcgate', bundleFiles(v2Dir)[0]!), join(v1Dir, 'svcgate', bundleFiles(v2Dir)[0]!));
      const record = join(v1Dir, 'svcgate/check.json');
      writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, 'utf8')), digest: 'a'.repeat(64) }));
    }],
  ])('%s: after a restart v2 boots and is the rollback reference, so v1 from the server is refused', async (_case, damage) => {
    const v1Dir = await persistedFolder('v1-permissive', EARLIER);
    const v2Dir = await persistedFolder('v2-revoking', LATER, withoutUserRead);
    damage(v1Dir, v2Dir);

    fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1-permissive', builtAt: EARLIER }));
    const restarted = consumer(v1Dir);
    expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v2-revoking', builtAt: LATER.toISOString(), activatedFrom: 'persisted' });
    expect(await restarted.nextOf('failed', 'activated')).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_ROLLBACK' }, status: { revision: 'v2-revoking' } });
    expect(await ownerRead(restarted.policy)).toBe(403);
  });

  test('it is committed at the next poll: its record is written and the older file removed', async () => {
    const v1Dir = await persistedFolder('v1', EARLIER);
    const v2Dir = await persistedFolder('v2', LATER, withoutUserRead);
    const v2File = bundleFiles(v2Dir)[0]!;
    cpSync(join(v2Dir, 'svcgate', v2File), join(v1Dir, 'svcgate', v2File));
    expect(bundleFiles(v1Dir)).toHaveLength(2);

    const restarted = consumer(v1Dir);
    expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v2', activatedFrom: 'persisted' });
    // The server still serves v2: downloaded once (a bundle without its record has no ETag), the same bytes.
    await restarted.next('unchanged');
    expect(bundleFiles(v1Dir)).toEqual([v2File]);
    expect(JSON.parse(readFileSync(join(v1Dir, 'svcgate/check.json'), 'utf8'))).toMatchObject({ digest: v2File.slice('bundle-'.length, -'.tar.gz'.length) });
  });

  test('with allowRollback only the record\'s bundle is used', async () => {
    const v1Dir = await persistedFolder('v1', EARLIER);
    const v2Dir = await persistedFolder('v2', LATER, withoutUserRead);
    cpSync(join(v2Dir, 'svcgate', bundleFiles(v2Dir)[0]!), join(v1Dir, 'svcgate', bundleFiles(v2Dir)[0]!));
    await fixture.server.stop();
    const restarted = fixture.consumer({ persistDir: v1Dir, allowRollback: true });
    expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v1', activatedFrom: 'persisted' });
  });
});

test('a temporary file of another process with the same pid (replicas in containers sharing a volume all run as pid 1) is not written over', async () => {
  const persistDir = tempDir();
  // Another writer's temporary record, in flight, under the name a pid-named temporary file had (a folder, so writing over it fails).
  mkdirSync(join(persistDir, `svcgate/check.json.${process.pid}.tmp/in-flight`), { recursive: true });
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const { events, next } = consumer(persistDir);
  await next('activated');
  await next('unchanged');
  expect(events.filter((event) => event.type === 'persist-failed')).toEqual([]);
  expect(existsSync(join(persistDir, 'svcgate/check.json'))).toBe(true);
  // Recent: left alone (only a temporary file older than 10 minutes is a crashed write's).
  expect(existsSync(join(persistDir, `svcgate/check.json.${process.pid}.tmp/in-flight`))).toBe(true);
});

test('a crashed write\'s temporary file older than 10 minutes is removed once a record is committed; a recent one is left alone', async () => {
  const persistDir = tempDir();
  const folder = join(persistDir, 'svcgate');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'check.json.crashed.tmp'), '{}');
  const elevenMinutesAgo = new Date(Date.now() - 11 * 60_000);
  utimesSync(join(folder, 'check.json.crashed.tmp'), elevenMinutesAgo, elevenMinutesAgo);
  writeFileSync(join(folder, 'check.json.in-flight.tmp'), '{}');
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const { next } = consumer(persistDir);
  await next('activated');
  expect(existsSync(join(folder, 'check.json.crashed.tmp'))).toBe(false);
  expect(existsSync(join(folder, 'check.json.in-flight.tmp'))).toBe(true);
});

test('a check time in the future (a clock that was ahead) counts as now: maxAgeSeconds still runs out', async () => {
  const persistDir = tempDir();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const first = consumer(persistDir);
  await first.next('activated');
  first.policy.close();
  await fixture.server.stop();
  const checkFile = join(persistDir, 'svcgate/check.json');
  const record = JSON.parse(readFileSync(checkFile, 'utf8')) as { checkedAt: number };
  writeFileSync(checkFile, JSON.stringify({ ...record, checkedAt: Date.now() + 3_600_000 }));

  const restarted = consumer(persistDir, { maxAgeSeconds: 0.3 });
  expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v1', activatedFrom: 'persisted' });
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(restarted.policy.status().ready).toBe(false);
  expect(await ownerRead(restarted.policy)).toBe(503);
});

test('a successful 304 clears the last error, as the status says', async () => {
  const { policy, next } = consumer(tempDir());
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  await next('activated');
  await fixture.server.stop();
  expect((await next('failed')).status.lastError).toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_DOWNLOAD' });
  await fixture.server.start();
  const unchanged = await next('unchanged');
  expect(unchanged.status.lastError).toBeNull();
  expect(policy.status().lastError).toBeNull();
});

test('a persisted copy that cannot be written: activated and deciding, persist-failed with ERR_SVCGATE_BUNDLE_PERSIST, no temporary file, written once the folder is fixed', async () => {
  const persistDir = tempDir();
  // A folder where the bundle file should be: the write is refused by the file system (EISDIR).
  const bundle = await exampleBundle({ revision: 'v1' });
  const bundleFile = join(persistDir, `svcgate/bundle-${sha256(bundle)}.tar.gz`);
  mkdirSync(join(bundleFile, 'in-the-way'), { recursive: true });
  fixture.server.publish('bundle.tar.gz', bundle);
  const { policy, events, next, nextOf } = consumer(persistDir);
  const activated = await nextOf('activated', 'failed');
  expect(activated.status).toMatchObject({ revision: 'v1', ready: true, activatedFrom: 'server' });
  // Reported right after the activation, in the same poll. At start-up the folder in the way could
  // not be read either: that is a persist-failed of its own, before the activation.
  expect(events.slice(0, 3).map((event) => event.type)).toEqual(['persist-failed', 'activated', 'persist-failed']);
  const persistFailed = events[2]!;
  expect(persistFailed).toMatchObject({ type: 'persist-failed', error: { code: 'ERR_SVCGATE_BUNDLE_PERSIST' } });
  expect((persistFailed as { error: { message: string } }).error.message).toMatch(/bundle-[0-9a-f]{64}\.tar\.gz cannot be written \(E[A-Z]+\)$/);
  expect(persistFailed.status).toMatchObject({ revision: 'v1', ready: true, lastError: { code: 'ERR_SVCGATE_BUNDLE_PERSIST' } });
  expect(await ownerRead(policy)).toBe(200);
  expect(temporaryFiles(persistDir)).toEqual([]);

  // The folder is fixed: the next poll writes the copy, and a restart without the server boots it.
  rmSync(bundleFile, { recursive: true });
  do await next('unchanged');
  while (!existsSync(join(persistDir, 'svcgate/check.json')));
  expect(policy.status().lastError).toBeNull();
  policy.close();
  await fixture.server.stop();
  const restarted = consumer(persistDir);
  expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v1', activatedFrom: 'persisted' });
});
