import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeNow } from './listen';

export interface ReceivedReport {
  path: string;
  headers: IncomingMessage['headers'];
  /** The report, parsed; every field of it as sent. */
  body: Record<string, unknown>;
}

/**
 * A service on 127.0.0.1 that takes OPA's status API (`POST /status[/<partition>]`, JSON) and,
 * for an OPA configured with it as its decision-log service too, `POST /logs` (answered 204, kept
 * aside). `answer` sets the status it answers reports with; `hang` accepts them and never answers;
 * `delayMs` answers late.
 * It counts reports received (answered or not) and the most open at once. Stop and start keep
 * the port.
 */
export class StatusCollector {
  readonly reports: ReceivedReport[] = [];
  /** Decision-log uploads received (OPA's, when it is configured with this service). */
  logUploads = 0;
  answer = 200;
  hang = false;
  /** Answers each report that late. */
  delayMs = 0;
  /** Status requests received, answered or not. */
  received = 0;
  /** The most status requests open at the same time. */
  maxOpen = 0;
  private open = 0;
  private server: Server | undefined;
  private port = 0;

  url(path = '/status'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await closeNow(server);
  }

  /** The last report `match` accepts, once one has arrived. */
  async waitFor(match: (report: ReceivedReport) => boolean, timeoutMs = 20_000): Promise<ReceivedReport> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.reports.filter(match).at(-1);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching report among ${this.reports.length}; the last: ${JSON.stringify(this.reports.at(-1)?.body ?? null).slice(0, 3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '';
    if (req.method === 'POST' && path === '/logs') {
      this.logUploads += 1;
      res.statusCode = 204;
      res.end();
      return;
    }
    if (req.method !== 'POST' || !path.startsWith('/status')) {
      res.statusCode = 404;
      res.end();
      return;
    }
    this.received += 1;
    this.open += 1;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    res.on('close', () => (this.open -= 1));
    if (this.hang) return;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    this.reports.push({ path, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown> });
    res.statusCode = this.answer;
    res.end();
  }
}
