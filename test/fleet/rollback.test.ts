import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readBundle, verificationKey } from '../../src/fleet';
import { writeTarGz } from '../../src/fleet/bundle/tar-gz';
import { policyWasmPath } from '../../src/policy/evaluate/policy-wasm-path';
import { exampleBundle, exampleData } from '../helpers/bundles';
import { consumerFixture, ownerRead, withoutUserRead } from '../helpers/consumer-fixture';

// SPEC 9.3, beyond OPA: whoever can write to the bundle server's bucket can serve an older,
// validly signed bundle again; a consumer refuses a bundle built before the active one.

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signing = { key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), algorithm: 'RS256' as const };
const verification = { key: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(), algorithm: 'RS256' as const };

const EARLIER = new Date('2026-11-20T09:00:00.000Z');
const LATER = new Date('2026-11-25T17:30:00.000Z');

const permissive = (builtAt: Date) => exampleBundle({ revision: 'v1-permissive', signing, builtAt });
const revoking = (builtAt: Date) => exampleBundle({ revision: 'v2-revoking', signing, builtAt, edit: withoutUserRead });

const fixture = consumerFixture({ verification });
const consumer = fixture.consumer;

/** The example bundle as another writer (`opa build`, an older svcgate) makes it: no build time in the manifest. */
async function bundleWithoutBuildTime(revision: string): Promise<Buffer> {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
  return writeTarGz([
    { name: '.manifest', bytes: json({ revision, roots: ['svcgate'] }) },
    { name: 'data.json', bytes: json({ svcgate: { acl: exampleData() } }) },
    { name: 'policy.wasm', bytes: readFileSync(policyWasmPath()) },
  ]);
}

test('svcgate bundle writes its build time into the signed manifest', async () => {
  const bytes = await revoking(LATER);
  const bundle = await readBundle(bytes, { verification: verificationKey(verification, '<test>', '$') });
  expect(bundle.manifest.metadata).toMatchObject({ svcgate: { builtAt: LATER.toISOString() } });
});

test('an older, validly signed bundle served again is refused with ERR_SVCGATE_BUNDLE_ROLLBACK, naming both build times; the newer keeps deciding', async () => {
  const { policy, next, nextOf } = consumer();
  fixture.server.publish('bundle.tar.gz', await revoking(LATER));
  expect((await next('activated')).status).toMatchObject({ revision: 'v2-revoking', builtAt: LATER.toISOString() });

  fixture.server.publish('bundle.tar.gz', await permissive(EARLIER));
  const refused = await nextOf('failed', 'activated');
  expect(refused).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_ROLLBACK' }, status: { revision: 'v2-revoking', ready: true } });
  const { message } = (refused as { error: { message: string } }).error;
  expect(message).toContain(`"v1-permissive" was built at ${EARLIER.toISOString()}`);
  expect(message).toContain(`"v2-revoking" (built at ${LATER.toISOString()})`);
  expect(message).toContain('allowRollback: true');
  expect(await ownerRead(policy)).toBe(403);
});

test('allowRollback: true activates the older bundle', async () => {
  const { policy, next } = consumer({ allowRollback: true });
  fixture.server.publish('bundle.tar.gz', await revoking(LATER));
  await next('activated');
  fixture.server.publish('bundle.tar.gz', await permissive(EARLIER));
  expect((await next('activated')).status).toMatchObject({ revision: 'v1-permissive', builtAt: EARLIER.toISOString() });
  expect(await ownerRead(policy)).toBe(200);
});

test('the persisted bundle is the reference after a restart: an older one from the server is still refused', async () => {
  const persistDir = fixture.tempDir();
  const first = consumer({ persistDir });
  fixture.server.publish('bundle.tar.gz', await revoking(LATER));
  await first.next('activated');
  first.policy.close();

  fixture.server.publish('bundle.tar.gz', await permissive(EARLIER));
  const restarted = consumer({ persistDir });
  expect((await restarted.next('activated')).status).toMatchObject({ revision: 'v2-revoking', activatedFrom: 'persisted' });
  expect(await restarted.nextOf('failed', 'activated')).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_ROLLBACK' }, status: { revision: 'v2-revoking' } });
  expect(await ownerRead(restarted.policy)).toBe(403);
});

test('a bundle without a build time: accepted while the active one has none either, refused once one with a build time is active', async () => {
  const { next, nextOf } = consumer({ verification: undefined });
  fixture.server.publish('bundle.tar.gz', await bundleWithoutBuildTime('plain-1'));
  expect((await next('activated')).status).toMatchObject({ revision: 'plain-1', builtAt: null });
  fixture.server.publish('bundle.tar.gz', await bundleWithoutBuildTime('plain-2'));
  expect((await next('activated')).status.revision).toBe('plain-2');

  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'built', builtAt: EARLIER }));
  expect((await next('activated')).status).toMatchObject({ revision: 'built', builtAt: EARLIER.toISOString() });
  fixture.server.publish('bundle.tar.gz', await bundleWithoutBuildTime('plain-3'));
  const refused = await nextOf('failed', 'activated');
  expect(refused).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_ROLLBACK' }, status: { revision: 'built' } });
  expect((refused as { error: { message: string } }).error.message).toMatch(/"plain-3" has no build time/);
});

test('a build time that is not an ISO 8601 UTC time is refused as a manifest error', async () => {
  const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8');
  fixture.server.publish('bundle.tar.gz', await writeTarGz([
    { name: '.manifest', bytes: json({ revision: 'odd', roots: ['svcgate'], metadata: { svcgate: { builtAt: 'last tuesday\n\u001b[31m' } } }) },
    { name: 'data.json', bytes: json({ svcgate: { acl: exampleData() } }) },
  ]));
  const refused = await consumer({ verification: undefined }).nextOf('failed', 'activated');
  expect(refused).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_MANIFEST' } });
  expect((refused as { error: { message: string } }).error.message).toContain('"last tuesday\\n\\u001b[31m" is not an ISO 8601 UTC time');
});

test('a bundle built more than 5 minutes ahead of the clock is refused each time it is served, and does not hold later bundles off', async () => {
  const { policy, next, nextOf } = consumer();
  const now = Date.now();
  // Within the clock skew allowed: accepted.
  fixture.server.publish('bundle.tar.gz', await exampleBundle({ revision: 'slightly-ahead', signing, builtAt: new Date(now + 4 * 60_000) }));
  expect((await next('activated')).status.revision).toBe('slightly-ahead');

  // An hour ahead (a builder whose clock ran ahead): activated, it would refuse every bundle built before then.
  const ahead = new Date(now + 3_600_000);
  fixture.server.publish('bundle.tar.gz', await revoking(ahead));
  const refused = await nextOf('failed', 'activated');
  expect(refused).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_MANIFEST' }, status: { revision: 'slightly-ahead', ready: true } });
  expect((refused as { error: { message: string } }).error.message).toContain(`"v2-revoking" was built at ${ahead.toISOString()}, more than 5 minutes after this machine's time`);
  // The refusal depends on the clock, so it is not remembered by digest: the bundle is downloaded and read again.
  const downloads = fixture.server.log.filter((line) => line === '200 /bundle.tar.gz').length;
  expect(await nextOf('failed', 'activated')).toMatchObject({ type: 'failed', error: { code: 'ERR_SVCGATE_BUNDLE_MANIFEST' } });
  expect(fixture.server.log.filter((line) => line === '200 /bundle.tar.gz').length).toBeGreaterThan(downloads);

  // A later bundle (built after the active one, within the skew) is activated: the fleet is not frozen.
  fixture.server.publish('bundle.tar.gz', await revoking(new Date(now + 5 * 60_000)));
  expect((await next('activated')).status.revision).toBe('v2-revoking');
  expect(await ownerRead(policy)).toBe(403);
});
