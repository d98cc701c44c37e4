import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import express from 'express';
import { closeNow } from './listen';

/**
 * A collector of OPA decision logs on 127.0.0.1: it keeps each POSTed batch (its compressed size,
 * its events, and its body as uploaded). `hang` makes it accept requests and never answer; `delayMs` answers each that
 * late; stop and start keep the port.
 */
export class LogCollector {
  readonly batches: { bytes: number; events: Record<string, unknown>[]; body: Buffer }[] = [];
  hang = false;
  delayMs = 0;
  private server: Server | undefined;
  private port = 0;

  get events(): Record<string, unknown>[] {
    return this.batches.flatMap((batch) => batch.events);
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/logs`;
  }

  async start(): Promise<void> {
    const app = express();
    app.post('/logs', async (req, res) => {
      if (this.hang) return;
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = Buffer.concat(chunks);
      const events = JSON.parse(req.headers['content-encoding'] === 'gzip' ? gunzipSync(body).toString() : body.toString()) as Record<string, unknown>[];
      if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      this.batches.push({ bytes: body.length, events, body });
      res.status(204).end();
    });
    this.server = await new Promise<Server>((resolve) => {
      const server = app.listen(this.port, '127.0.0.1', () => resolve(server));
    });
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await closeNow(server);
  }

  /** Resolves once `count` events have arrived. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.events.length} of ${count} events arrived`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
