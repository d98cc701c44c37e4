import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readTarGz, writeTarGz } from '../../src/fleet/bundle/tar-gz';
import { BundleServer } from '../helpers/bundle-server';
import { exampleBundle, type Permissions } from '../helpers/bundles';
import { LogCollector } from '../helpers/log-collector';
import { startOpa, type OpaServer } from '../helpers/opa-server';

// SPEC 8.6 on real parts, all on 127.0.0.1: a static bundle server (express.static, with ETags),
// two replica processes of examples/fleet/replica.mjs and a real `opa run --server` polling the
// same signed bundle, and a decision-log collector. A new revision is published under load; a
// tampered one is refused; the server stops; a replica restarts offline; maxAge runs out.
const ROOT = join(__dirname, '../..');
const REPLICA = join(ROOT, 'examples/fleet/replica.mjs');
// The demo issuer, audience and secret of examples/demo-jwt.mjs, which the replicas verify with.
const DEMO_JWT = { issuer: 'svcgate-example', audience: 'svcgate-example-api', secret: 'example-secret-of-at-least-32-bytes!!' };

jest.setTimeout(120_000);

interface Replica {
  url: string;
  process: ChildProcess;
  status(): Promise<{ bundle: { revision: string | null; ready: boolean; activatedFrom: string | null; lastError: { code: string; message: string } | null } }>;
  stop(): Promise<void>;
}

const dir = mkdtempSync(join(tmpdir(), 'svcgate-fleet-'));
const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signing = { key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' as const, keyId: 'fleet' };
const publicKeyFile = join(dir, 'bundle-signing.pub');
writeFileSync(publicKeyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));

const bundles = new BundleServer();
const collector = new LogCollector();
const replicas: Replica[] = [];
let opa: OpaServer;

async function demoToken(claims: Record<string, unknown>): Promise<string> {
  const { SignJWT } = await import('jose');
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuer(DEMO_JWT.issuer).setAudience(DEMO_JWT.audience).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(DEMO_JWT.secret));
}

function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, [REPLICA], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BUNDLE_URL: bundles.url('bundle.tar.gz'), VERIFICATION_KEY: publicKeyFile, DECISION_LOG_URL: collector.url, MIN_DELAY: '0.2', MAX_DELAY: '0.4', ...env },
  });
  let output = '';
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const url = /listening (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      if (url === undefined) return;
      const replica: Replica = {
        url,
        process: child,
        status: async () => (await fetch(`${url}/fleet/status`)).json() as ReturnType<Replica['status']>,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
      replicas.push(replica);
      resolve(replica);
    });
    child.once('exit', (code) => reject(new Error(`the replica exited with ${code}: ${output}`)));
  });
}

/** v2 takes read:own on users away from the user role: the owner's 200 becomes 403. */
const withoutUserRead = (permissions: Permissions) => {
  delete permissions.user!['/users/{userId}']!['read:own'];
};

async function opaRevision(): Promise<string | undefined> {
  const answer = (await (await fetch(`${opa.url}/v1/data/system/bundles/svcgate/manifest/revision`)).json()) as { result?: string };
  return answer.result;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  bundles.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1', signing }));
  await bundles.start();
  await collector.start();
  const config = join(dir, 'opa.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      services: { bundles: { url: bundles.url('').replace(/\/$/, '') } },
      bundles: { svcgate: { service: 'bundles', resource: 'bundle.tar.gz', polling: { min_delay_seconds: 1, max_delay_seconds: 1 }, signing: { keyid: 'fleet' } } },
      keys: { fleet: { algorithm: 'RS256', key: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() } },
    }),
  );
  opa = await startOpa(['-c', config], { ready: '/health?bundles' });
});

afterAll(async () => {
  for (const replica of replicas) await replica.stop();
  await opa?.stop();
  await bundles.dispose();
  await collector.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('two replicas and OPA switch to a new revision under load, refuse a tampered one, keep the last good offline, restart from the persisted one, and fail closed after maxAge', async () => {
  const [first, second] = await Promise.all([startReplica({ PERSIST_DIR: join(dir, 'persist-1') }), startReplica({ PERSIST_DIR: join(dir, 'persist-2') })]);
  for (const replica of [first!, second!]) await until('replica ready', () => replica.status(), (status) => status.bundle.revision === 'v1');
  expect(await opaRevision()).toBe('v1');
  const owner = `Bearer ${await demoToken({ sub: 'u1', role: 'user', userId: [1] })}`;
  const get = async (replica: Replica) => (await fetch(`${replica.url}/api/v1/users/1`, { headers: { authorization: owner } })).status;
  expect([await get(first!), await get(second!)]).toEqual([200, 200]);

  // Under load, a new revision: every answer is the old one's (200) or the new one's (403).
  const seen: number[] = [];
  let loading = true;
  const load = Promise.all(
    [first!, second!].map(async (replica) => {
      while (loading) seen.push(await get(replica).catch(() => -1));
    }),
  );
  const published = Date.now();
  bundles.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2', edit: withoutUserRead, signing }));
  const switchedAfter: Record<string, number> = {};
  await Promise.all([
    ...[first!, second!].map((replica, index) => until(`replica ${index + 1} switch`, () => replica.status(), (status) => status.bundle.revision === 'v2').then(() => (switchedAfter[`replica ${index + 1}`] = Date.now() - published))),
    until('OPA switch', opaRevision, (revision) => revision === 'v2').then(() => (switchedAfter.opa = Date.now() - published)),
  ]);
  loading = false;
  await load;
  process.stdout.write(`fleet: revision v2 active after ${JSON.stringify(switchedAfter)} ms (polling 0.2-0.4 s for the replicas, 1 s for OPA)\n`);
  expect(seen.filter((status) => status !== 200 && status !== 403)).toEqual([]);
  expect(seen.length).toBeGreaterThan(10);
  expect([await get(first!), await get(second!)]).toEqual([403, 403]);

  // A tampered bundle (the grant put back without re-signing) is refused everywhere; v2 stays.
  const files = await readTarGz(await exampleBundle({ revision: 'v2', edit: withoutUserRead, signing }));
  const good = await exampleBundle({ revision: 'v3', signing });
  const goodFiles = await readTarGz(good);
  files.set('data.json', goodFiles.get('data.json')!);
  bundles.publish('bundle.tar.gz', await writeTarGz([...files].map(([name, bytes]) => ({ name, bytes }))));
  for (const replica of [first!, second!]) {
    const status = await until('refusal', () => replica.status(), (value) => value.bundle.lastError?.code === 'ERR_SVCGATE_BUNDLE_SIGNATURE');
    expect(status.bundle).toMatchObject({ revision: 'v2', ready: true });
  }
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await opaRevision()).toBe('v2');
  expect(opa.log()).toMatch(/digest mismatch/);
  expect([await get(first!), await get(second!)]).toEqual([403, 403]);

  // The bundle server goes away: the last good revision keeps deciding, the status says why.
  await bundles.stop();
  const offline = await until('download error', () => first!.status(), (value) => value.bundle.lastError?.code === 'ERR_SVCGATE_BUNDLE_DOWNLOAD');
  expect(offline.bundle).toMatchObject({ revision: 'v2', ready: true });
  // A poll in flight when the server stopped is reset; the next one is refused.
  expect(offline.bundle.lastError!.message).toMatch(/cannot be reached \((ECONNREFUSED|ECONNRESET)\)/);
  expect(await get(first!)).toBe(403);

  // Restarted while the server is still down: it boots from its persisted bundle. maxAge counts
  // from the last check that reached the server, before the restart: it must outlast starting a
  // process on a slow machine (3 s did not, on one running at 40% of its usual speed).
  await first!.stop();
  const restarted = await startReplica({ PERSIST_DIR: join(dir, 'persist-1'), MAX_AGE: '10' });
  const booted = await until('persisted boot', () => restarted.status(), (value) => value.bundle.revision !== null);
  expect(booted.bundle).toMatchObject({ revision: 'v2', activatedFrom: 'persisted' });
  expect(await get(restarted)).toBe(403);

  // No successful check for maxAge (10 s): guarded requests fail closed.
  const stale = await until('maxAge', () => fetch(`${restarted.url}/api/v1/users/1`, { headers: { authorization: owner } }), (answer) => answer.status === 503, 20_000);
  expect(stale.headers.get('retry-after')).toMatch(/^\d+$/);
  expect((await fetch(`${restarted.url}/healthz`)).status).toBe(503);

  // Decision logs from both replicas reached the collector, with the revision that decided.
  await until('decision logs', async () => collector.events.length, (count) => count > 0, 10_000);
  const revisions = new Set(collector.events.map((event) => (event.bundles as { svcgate?: { revision: string } } | undefined)?.svcgate?.revision));
  expect([...revisions]).toEqual(expect.arrayContaining(['v1', 'v2']));
  expect(new Set(collector.events.map((event) => (event.labels as { replica: string }).replica)).size).toBeGreaterThanOrEqual(2);
});
