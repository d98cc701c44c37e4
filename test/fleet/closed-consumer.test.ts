import type { BundleEvent } from '../../src/fleet';
import { bundleConsumer } from '../../src/fleet';
import { closeNow, listen } from '../helpers/listen';

// A consumer closed while its poll is out reports nothing more: no onUpdate, no telemetry, no
// persisting. (It reported the poll's failure after close(), which in a test runner lands in
// whatever runs next.) A second consumer, left open on the same server, is the control: its
// failure shows when the aborted polls have been handled.

test('close() with a poll in flight: the closed consumer reports nothing when that poll fails, the open one does', async () => {
  let arrivals = 0;
  let bothArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (bothArrived = resolve));
  const { url, server } = await listen(() => {
    if (++arrivals === 2) bothArrived();
  });
  const closedEvents: BundleEvent['type'][] = [];
  let controlFailed: () => void = () => undefined;
  const controlFailure = new Promise<void>((resolve) => (controlFailed = resolve));
  const closed = bundleConsumer({ url: `${url}/bundle.tar.gz`, onUpdate: (event) => closedEvents.push(event.type) });
  const control = bundleConsumer({ url: `${url}/bundle.tar.gz`, onUpdate: (event) => event.type === 'failed' && controlFailed() });
  try {
    await arrived;
    closed.close();
    await closeNow(server);
    await controlFailure;
  } finally {
    // Also when a wait above never ends: a consumer left polling, or the server, keeps jest alive.
    closed.close();
    control.close();
    if (server.listening) await closeNow(server);
  }
  expect(closedEvents).toEqual([]);
});
