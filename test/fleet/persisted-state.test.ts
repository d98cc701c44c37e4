import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

test('a check record beside other bytes (the bundle write failed, the record write did not) boots as nothing persisted', async () => {
  // Two real persisted folders, then the state a failed bundle write leaves: v2's record beside v1's bytes.
  const oldDir = tempDir();
  const newDir = tempDir();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const v1 = consumer(oldDir);
  await v1.next('activated');
  v1.policy.close();
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2', edit: withoutUserRead }));
  const v2 = consumer(newDir);
  await v2.next('activated');
  v2.policy.close();
  cpSync(join(oldDir, 'svcgate/bundle.tar.gz'), join(newDir, 'svcgate/bundle.tar.gz'));

  const requestsBefore = fixture.server.log.length;
  const restarted = consumer(newDir);
  const first = await restarted.nextOf('activated', 'persist-failed');
  expect(first).toMatchObject({ type: 'persist-failed', error: { code: 'ERR_SVCGATE_BUNDLE_PERSIST' }, status: { revision: null, ready: false } });
  expect((first as { error: { message: string } }).error.message).toMatch(/persisted bundle was not used/);
  // Nothing decides until the server is asked, and the server's answer is a download, not a 304 for v1.
  expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v2', activatedFrom: 'server' });
  expect(fixture.server.log[requestsBefore]).toBe('200 /bundle.tar.gz');
  expect(await ownerRead(restarted.policy)).toBe(403);
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
  mkdirSync(join(persistDir, 'svcgate/bundle.tar.gz/in-the-way'), { recursive: true });
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const { policy, events, next, nextOf } = consumer(persistDir);
  const activated = await nextOf('activated', 'failed');
  expect(activated.status).toMatchObject({ revision: 'v1', ready: true, activatedFrom: 'server' });
  // Reported right after the activation, in the same poll. At start-up the folder in the way could
  // not be read either: that is a persist-failed of its own, before the activation.
  expect(events.slice(0, 3).map((event) => event.type)).toEqual(['persist-failed', 'activated', 'persist-failed']);
  const persistFailed = events[2]!;
  expect(persistFailed).toMatchObject({ type: 'persist-failed', error: { code: 'ERR_SVCGATE_BUNDLE_PERSIST' } });
  expect((persistFailed as { error: { message: string } }).error.message).toMatch(/bundle\.tar\.gz cannot be written \(E[A-Z]+\)$/);
  expect(persistFailed.status).toMatchObject({ revision: 'v1', ready: true, lastError: { code: 'ERR_SVCGATE_BUNDLE_PERSIST' } });
  expect(await ownerRead(policy)).toBe(200);
  expect(temporaryFiles(persistDir)).toEqual([]);

  // The folder is fixed: the next poll writes the copy, and a restart without the server boots it.
  rmSync(join(persistDir, 'svcgate/bundle.tar.gz'), { recursive: true });
  do await next('unchanged');
  while (!existsSync(join(persistDir, 'svcgate/check.json')));
  expect(policy.status().lastError).toBeNull();
  policy.close();
  await fixture.server.stop();
  const restarted = consumer(persistDir);
  expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v1', activatedFrom: 'persisted' });
});
