import { request as httpRequest, type Agent, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Settles an exchange once: with an error, or with the value read from the answer. */
export type Finish<T> = (error: Error | undefined, value?: T) => void;

export interface Exchange {
  url: URL;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Buffer;
  /** For the whole exchange: connecting, the answer's headers and its whole body. */
  timeoutMs: number;
  /** Default false: no pooled socket outlives the exchange. */
  agent?: Agent | false;
}

/** The caller's errors, in its own words; none holds anything the server sent. */
export interface ExchangeFailures {
  timeout: () => Error;
  /** `code` is Node's (`ECONNREFUSED`...). */
  unreachable: (code: string) => Error;
}

/**
 * One HTTP(S) exchange, bounded in time: a server that never answers or trickles costs at most
 * `timeoutMs`. `read` gets the answer and settles with `finish`; only the first outcome counts,
 * and an error destroys the request. No timer or socket keeps the process alive.
 */
export function boundedExchange<T>(exchange: Exchange, failures: ExchangeFailures, read: (response: IncomingMessage, finish: Finish<T>) => void): Promise<T> {
  const send = exchange.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish: Finish<T> = (error, value) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(value as T);
    };
    const req = send(exchange.url, { method: exchange.method, agent: exchange.agent ?? false, headers: exchange.headers });
    const timer = setTimeout(() => finish(failures.timeout()), exchange.timeoutMs);
    timer.unref();
    req.on('socket', (socket) => socket.unref());
    req.on('error', (error: NodeJS.ErrnoException) => finish(failures.unreachable(error.code ?? 'connection failed')));
    req.on('response', (response) => read(response, finish));
    req.end(exchange.body);
  });
}

export interface BodyFailures {
  tooLarge: () => Error;
  /** The connection closed before the whole body arrived. */
  broken: () => Error;
}

/**
 * Collects an answer's body, refused as soon as it is known to exceed `maxBytes` (by its
 * Content-Length, else while it arrives), so a huge body is never buffered.
 */
export function readBounded(response: IncomingMessage, maxBytes: number, failures: BodyFailures, fail: (error: Error) => void, done: (body: Buffer) => void): void {
  if (Number(response.headers['content-length']) > maxBytes) {
    fail(failures.tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) fail(failures.tooLarge());
    else chunks.push(chunk);
  });
  response.on('error', () => fail(failures.broken()));
  response.on('close', () => {
    if (!response.complete) fail(failures.broken());
  });
  response.on('end', () => done(Buffer.concat(chunks)));
}
