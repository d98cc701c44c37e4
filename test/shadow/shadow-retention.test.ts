import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Decision, PolicyInput, PolicySource } from '../../src/policy';
import { examplePermissions } from '../helpers/bundles';
import { send, shadowApp, shadowSettled } from './shadow-apps';

// A candidate may hand every caller the same promise (requests coalesced while its backend hangs).
// Past timeoutMs the comparison is an error and its slot is freed; the promise keeps one reaction
// per request for as long as it lives, which must not keep that request's input and decisions.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

test('requests timed out on a promise that never settles are not kept alive by it', async () => {
  const forever = new Promise<Decision>(() => undefined);
  const candidate: PolicySource = { connect: () => ({ evaluate: (_input: PolicyInput) => forever, revision: 'hung', policyRevision: 'hung' }) };
  const inputs: WeakRef<object>[] = [];
  const app = await shadowApp({ acl: { bearerAuth: examplePermissions() }, decisionLog: (event) => void inputs.push(new WeakRef(event.input)), shadow: { source: candidate, timeoutMs: 20 } });
  try {
    const total = 20;
    for (let i = 0; i < total; i++) await send(app.url, { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } });
    await shadowSettled(app.guard, (status) => status.errors === total);
    for (let round = 0; round < 5 && inputs.some((input) => input.deref() !== undefined); round++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc();
    }
    expect(inputs.filter((input) => input.deref() !== undefined)).toHaveLength(0);
  } finally {
    await app.close();
  }
  // The promise is still here: what it holds is one small reaction per request.
  expect(forever).toBeInstanceOf(Promise);
});

test("a response whose socket the handler takes over never closes: the request is not compared, and nothing of it is kept once the response is gone", async () => {
  const inputs: WeakRef<object>[] = [];
  const app = await shadowApp(
    { acl: { bearerAuth: examplePermissions() }, decisionLog: (event) => void inputs.push(new WeakRef(event.input)), shadow: { source: examplePermissions() } },
    undefined,
    (req, res) => {
      // As a proxy or an upgrade handler does: the socket leaves the response, whose 'close' never comes.
      const socket = req.socket;
      res.detachSocket(socket);
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    },
  );
  try {
    const total = 10;
    for (let i = 0; i < total; i++) expect((await send(app.url, { method: 'GET', path: '/users/1', claims: { role: 'user', userId: 1 } })).body).toBe('ok');
    for (let round = 0; round < 5 && inputs.some((input) => input.deref() !== undefined); round++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc();
    }
    expect(inputs).toHaveLength(total);
    expect(inputs.filter((input) => input.deref() !== undefined)).toHaveLength(0);
    expect(app.guard.shadowStatus()).toMatchObject({ compared: 0, errors: 0, skipped: { busy: 0 } });
  } finally {
    await app.close();
  }
});
