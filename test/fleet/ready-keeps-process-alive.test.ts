import { bundleConsumer } from '../../src/fleet';
import { BundleServer } from '../helpers/bundle-server';
import { exampleBundle } from '../helpers/bundles';
import { entry, runScript } from '../helpers/node-script';

// SPEC 9.6, last clause: `await consumer.ready()` (docs/fleets.md) at the top of an ES module
// waits for the bundle, in a real process against a real bundle server. The polls hold no socket
// or timer of their own, so without the fix the process ended at the await (exit code 13, and
// nothing after it ran).

jest.setTimeout(60_000);

let server: BundleServer;
beforeEach(async () => {
  server = new BundleServer();
  await server.start();
});
afterEach(() => server.dispose());

test('await consumer.ready() keeps the process alive until the bundle is activated, then lets it exit', async () => {
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'v1' }));
  const run = runScript(`import { bundleConsumer } from ${entry('fleet')};
    const consumer = bundleConsumer({ url: ${JSON.stringify(server.url('bundle.tar.gz'))} });
    await consumer.ready();
    console.log('ready', consumer.status().revision);`);
  const { code, stdout } = await run.exited;
  expect({ code, stdout }).toEqual({ code: 0, stdout: 'ready v1\n' });
});

test('it also waits through failed polls, for a bundle published later', async () => {
  const run = runScript(`import { bundleConsumer } from ${entry('fleet')};
    const consumer = bundleConsumer({ url: ${JSON.stringify(server.url('bundle.tar.gz'))}, polling: { minDelaySeconds: 0.05, maxDelaySeconds: 0.1 }, onUpdate: (event) => console.log(event.type) });
    await consumer.ready();
    console.log('ready', consumer.status().revision);`);
  await run.line((line) => line === 'failed');
  server.publish('bundle.tar.gz', await exampleBundle({ revision: 'late' }));
  const { code, stdout } = await run.exited;
  expect(code).toBe(0);
  expect(stdout).toMatch(/^failed\n/);
  expect(stdout).toContain('ready late\n');
});

test('close() before any activation rejects ready() with ERR_SVCGATE_BUNDLE_CLOSED, so an awaiting process ends', async () => {
  const consumer = bundleConsumer({ url: server.url('nothing.tar.gz') });
  const ready = consumer.ready();
  consumer.close();
  await expect(ready).rejects.toMatchObject({ code: 'ERR_SVCGATE_BUNDLE_CLOSED', message: expect.stringMatching(/closed before a bundle was activated/) });
});
