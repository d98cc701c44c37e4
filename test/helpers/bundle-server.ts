import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { closeNow } from './listen';

/**
 * A bundle server as users run one: express.static over a folder, which sends ETags and answers
 * If-None-Match with 304. It can be stopped and started again on the same port.
 */
export class BundleServer {
  readonly dir = mkdtempSync(join(tmpdir(), 'svcgate-bundles-'));
  private server: Server | undefined;
  private port = 0;
  /** Requests seen, as `<status> <path>`, to tell downloads from 304s. */
  readonly log: string[] = [];

  /** `etag: false` serves as a plain file server without ETags would: every poll downloads. */
  constructor(private readonly options: { etag: boolean } = { etag: true }) {}

  async start(): Promise<string> {
    const app = express();
    app.use((req, res, next) => {
      res.on('finish', () => this.log.push(`${res.statusCode} ${req.path}`));
      next();
    });
    app.use(express.static(this.dir, { etag: this.options.etag, lastModified: false }));
    this.server = await new Promise<Server>((resolve) => {
      const server = app.listen(this.port, '127.0.0.1', () => resolve(server));
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.url('');
  }

  url(file: string): string {
    return `http://127.0.0.1:${this.port}/${file}`;
  }

  /** Replaces the file in one rename, as a deploy step would, so no download sees half of it. */
  publish(file: string, bytes: Uint8Array): void {
    const temporary = join(this.dir, `.${file}.tmp`);
    writeFileSync(temporary, bytes);
    renameSync(temporary, join(this.dir, file));
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await closeNow(server);
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
