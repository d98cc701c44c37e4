import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import type { BundleConsumer, BundleConsumerOptions } from '../../src/fleet';
import * as reader from '../../src/fleet/bundle/bundle-reader';
import { writeBundle } from '../../src/fleet/bundle/bundle-writer';
import { BundleServer } from '../helpers/bundle-server';
import { EXAMPLE_OPENAPI, exampleBundle, exampleData } from '../helpers/bundles';
import { preListPolicyWasm } from '../helpers/pre-list-policy';
import { guardedByConsumer, ownerRead } from '../helpers/consumer-fixture';
import { watchedConsumer, type WatchedConsumer } from '../helpers/watched-consumer';

// SPEC 9.1, last clause: a refused bundle is not downloaded or read again until it changes, and
// the refusal stays in the status for as long as the server serves that bundle.

const signingPair = () => {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { signing: { key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'ES256' as const }, public: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const trusted = signingPair();
const attacker = signingPair();
const verification = { key: trusted.public, algorithm: 'ES256' as const };

const servers: BundleServer[] = [];
const consumers: BundleConsumer[] = [];

afterEach(async () => {
  jest.restoreAllMocks();
  for (const consumer of consumers.splice(0)) consumer.close();
  for (const server of servers.splice(0)) await server.dispose();
});

async function bundleServer(options?: { etag: boolean }): Promise<BundleServer> {
  const server = new BundleServer(options);
  await server.start();
  servers.push(server);
  return server;
}

function consumer(server: BundleServer, options: Partial<BundleConsumerOptions> = {}): WatchedConsumer {
  return watchedConsumer({ url: server.url('bundle.tar.gz'), verification, ...options }, consumers);
}

/** Waits for `count` more polls that end in a refusal. */
async function refusedPolls(watched: WatchedConsumer, count: number): Promise<void> {
  for (let i = 0; i < count; i++) expect(await watched.nextOf('failed', 'activated', 'unchanged')).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_SIGNATURE' } });
}

/** A server serving the trusted bundle v1 and a consumer that has activated it, bundle reads counted from the start. */
async function activeV1(options?: { etag: boolean }): Promise<{ server: BundleServer; reads: jest.SpyInstance; watched: WatchedConsumer }> {
  const server = await bundleServer(options);
  const reads = jest.spyOn(reader, 'readBundle');
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1', signing: trusted.signing }));
  const watched = consumer(server);
  await watched.next('activated');
  return { server, reads, watched };
}

const downloads = (server: BundleServer) => server.log.filter((line) => line === '200 /bundle.tar.gz').length;

test('with ETags: a refused bundle is downloaded once, then answered 304, its refusal kept; the next good one is activated', async () => {
  const server = await bundleServer();
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1', signing: trusted.signing }));
  const watched = consumer(server);
  await watched.next('activated');
  const before = downloads(server);

  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'forged', signing: attacker.signing }));
  await refusedPolls(watched, 4);
  expect(downloads(server) - before).toBe(1);
  // Each 304 of the refused bundle keeps the refusal: it is the server's bundle still.
  expect(watched.policy.status()).toMatchObject({ revision: 'v1', ready: true, lastError: { code: 'ERR_SVCGATE_BUNDLE_SIGNATURE' } });

  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v2', signing: trusted.signing }));
  expect((await watched.next('activated')).status).toMatchObject({ revision: 'v2', lastError: null });
});

test('without ETags: the refused bytes, downloaded at each poll, are read once', async () => {
  const { server, reads, watched } = await activeV1({ etag: false });
  expect(reads).toHaveBeenCalledTimes(1);

  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'forged', signing: attacker.signing }));
  await refusedPolls(watched, 4);
  expect(reads).toHaveBeenCalledTimes(2);
  expect(downloads(server)).toBeGreaterThanOrEqual(5);
});

test('the server going back to the active bundle clears the refusal without reading the bundle again', async () => {
  const server = await bundleServer();
  const reads = jest.spyOn(reader, 'readBundle');
  const good = await exampleBundle({ revision: 'v1', signing: trusted.signing });
  server.publish('bundle.tar.gz', good);
  const watched = consumer(server);
  await watched.next('activated');
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'forged', signing: attacker.signing }));
  await refusedPolls(watched, 2);

  server.publish('bundle.tar.gz', good);
  expect((await watched.nextOf('unchanged', 'failed', 'activated')).status).toMatchObject({ revision: 'v1', lastError: null });
  expect(reads).toHaveBeenCalledTimes(2);
});

test('a refused bundle answered 304 is no check of the active one: maxAgeSeconds runs out, as when it was downloaded each time', async () => {
  const server = await bundleServer();
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1', signing: trusted.signing }));
  const watched = consumer(server, { maxAgeSeconds: 0.3 });
  const app = guardedByConsumer(watched.policy);
  await watched.next('activated');
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'forged', signing: attacker.signing }));
  await refusedPolls(watched, 1);
  await new Promise((resolve) => setTimeout(resolve, 400));
  expect(watched.policy.status()).toMatchObject({ ready: false, lastError: { code: 'ERR_SVCGATE_BUNDLE_SIGNATURE' } });
  expect(server.log.at(-1)).toBe('304 /bundle.tar.gz');
  expect(await ownerRead(app)).toBe(503);
});

test('a bundle with a list operation whose policy.wasm has no plan entrypoint (built before lists) is refused once, saying so, and the active one stays', async () => {
  const { server, reads, watched } = await activeV1({ etag: false });

  // GET /users lists the users GET /users/{userId} reads: data written by this svcgate, beside an old policy.wasm.
  const openapi = load(readFileSync(EXAMPLE_OPENAPI, 'utf8')) as { paths: Record<string, Record<string, Record<string, unknown>>> };
  openapi.paths['/users']!.get!['x-acl-list'] = { item: '/users/{userId}' };
  const data = exampleData((permissions) => delete permissions.admin!['/users']!['read:any'], openapi);
  server.publish('bundle.tar.gz', await writeBundle({ data, wasm: preListPolicyWasm(), rego: {}, revision: 'v2', signing: trusted.signing }));
  for (let i = 0; i < 3; i++) {
    const event = await watched.nextOf('failed', 'activated', 'unchanged');
    expect(event).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_POLICY', message: expect.stringContaining('no entrypoint svcgate/authz/plan, which the list operation GET /users needs') } });
  }
  expect(watched.policy.status()).toMatchObject({ revision: 'v1', ready: true, lastError: { code: 'ERR_SVCGATE_BUNDLE_POLICY' } });
  // Downloaded at each poll (no ETag), read once: the refusal is remembered as a bad signature's is.
  expect(reads).toHaveBeenCalledTimes(2);
});
