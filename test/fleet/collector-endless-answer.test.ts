import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createStatusReporter } from '../../src/fleet';

// A collector that answers 200 and then never ends its body (or trickles it forever): the report
// is accepted at the status line, and the connection must not stay open behind it. Reports go out
// every minute with no pooled socket, so each one left open was a socket (and a descriptor) kept
// for the life of the process, reading whatever the collector sends.

jest.setTimeout(15_000);

let server: Server;
const open = new Set<Socket>();
let received = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.write(Buffer.alloc(16 * 1024));
      // never res.end()
    });
  });
  server.on('connection', (socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of open) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

test('a 200 whose body never ends: each report counts as sent and its connection is closed, none left open', async () => {
  const { port } = server.address() as AddressInfo;
  const reporter = createStatusReporter({ url: `http://127.0.0.1:${port}/status`, metrics: false });
  for (let i = 0; i < 3; i += 1) await reporter.flush();
  expect(reporter.status()).toMatchObject({ lastError: null });
  expect(reporter.status().reported).toBeGreaterThanOrEqual(3);
  await reporter.close();
  // Every connection the reports opened is closed by the reporter (the server never closes one).
  for (let wait = 0; wait < 100 && open.size > 0; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  expect(open.size).toBe(0);
  expect(received).toBeGreaterThanOrEqual(3);
});
