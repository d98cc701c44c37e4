import type { ServerResponse } from 'node:http';
import { bearerJwt } from '../../src/auth';
import { bundleConsumer } from '../../src/fleet';
import { signingKey } from '../helpers/jwks-server';
import { closeNow, listen } from '../helpers/listen';

// Review of issue 27, section 5: an awaited ready() keeps the process alive (SPEC 9.6), but each
// pending call held a referenced timer of its own: a service calling ready() on every request
// during an outage had a thousand live timers after a thousand requests. One handle now holds the
// process for all of them, and goes when the last one settles.

/** The referenced timers of this process: the handles that keep it alive. */
const heldTimers = () => process.getActiveResourcesInfo().filter((type) => type === 'Timeout').length;

/** A server that answers nothing until `answer` is called: a provider or bundle server in an outage. */
async function stalledServer() {
  const waiting: ServerResponse[] = [];
  let arrived: () => void = () => undefined;
  const firstRequest = new Promise<void>((resolve) => (arrived = resolve));
  const { url, server } = await listen((_req, res) => {
    waiting.push(res);
    arrived();
  });
  return {
    url,
    firstRequest,
    answer(status: number, body: unknown) {
      for (const res of waiting.splice(0)) res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    },
    close: () => closeNow(server),
  };
}

test("bearerJwt: a thousand pending handler.ready() calls hold one timer, released when the key set arrives", async () => {
  const provider = await stalledServer();
  const handler = bearerJwt({ issuer: 'https://issuer.example', jwks: `${provider.url}/jwks`, algorithms: ['ES256'], audience: 'api', timeoutDuration: 60_000 });
  await provider.firstRequest;
  const before = heldTimers();
  const calls = Array.from({ length: 1000 }, () => handler.ready());
  const during = heldTimers() - before;
  provider.answer(200, { keys: [(await signingKey('k1')).jwk] });
  await Promise.all(calls);
  const after = heldTimers() - before;
  await provider.close();
  expect({ during, after }).toEqual({ during: 1, after: 0 });
});

test('bundleConsumer: a thousand pending consumer.ready() calls hold one timer, released when close() rejects them', async () => {
  const server = await stalledServer();
  const consumer = bundleConsumer({ url: `${server.url}/bundle.tar.gz` });
  await server.firstRequest;
  const before = heldTimers();
  const calls = Array.from({ length: 1000 }, () => consumer.ready().then(() => 'activated', () => 'rejected'));
  const during = heldTimers() - before;
  consumer.close();
  const outcomes = new Set(await Promise.all(calls));
  const after = heldTimers() - before;
  await server.close();
  expect({ during, after, outcomes: [...outcomes] }).toEqual({ during: 1, after: 0, outcomes: ['rejected'] });
});
