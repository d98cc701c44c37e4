import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Serves `app` on 127.0.0.1 and a free port; tests send real HTTP to the URL. */
export async function listen(app: RequestListener): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const { createServer } = await import('node:http');
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Closes `server` now: kept-alive connections too, so that a test can stop a server mid-poll. */
export async function closeNow(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
