import { connect, type Socket } from 'node:net';

// HTTP/1.1 over a plain TCP socket. The request line is written byte for byte as given, so no
// client normalises the target (fetch and supertest resolve `..`, drop `#...`, encode `\` and
// unicode), and requests on one connection are strictly sequential, so whatever the server does
// between writing a request and answering it belongs to that request.

export interface RawRequest {
  method: string;
  /** The request target exactly as it goes on the wire (origin-, absolute- or asterisk-form, or anything else). */
  target: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface RawResponse {
  /** 0 when the server closed the connection without answering. */
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

/** The request's bytes: the request line and headers as given, Host and Content-Length added. */
export function encodeRequest(request: RawRequest): Buffer {
  const body = request.body === undefined ? undefined : Buffer.from(request.body, 'utf8');
  const headers: Record<string, string> = { host: '127.0.0.1', ...request.headers };
  if (body !== undefined) headers['content-length'] = String(body.length);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
  return body === undefined ? Buffer.from(head, 'utf8') : Buffer.concat([Buffer.from(head, 'utf8'), body]);
}

interface Pending {
  method: string;
  resolve: (response: RawResponse) => void;
  reject: (error: Error) => void;
}

/**
 * One keep-alive connection to 127.0.0.1:port, reopened when the server closes it (Node closes
 * after answering a request it could not parse). `send` must not be called again before the
 * previous call settled.
 */
export class RawHttpConnection {
  private socket: Socket | undefined;
  private buffer = Buffer.alloc(0);
  private pending: Pending | undefined;
  /** Requests answered on the current socket; a reused socket that closes silently is retried once. */
  private answeredOnSocket = 0;

  constructor(
    private readonly port: number,
    /** A safety net against a hung server so the suite ends with a message, not an assertion on time. */
    private readonly giveUpAfterMs = 20_000,
  ) {}

  async send(request: RawRequest): Promise<RawResponse> {
    if (this.pending) throw new Error('RawHttpConnection: one request at a time');
    const bytes = encodeRequest(request);
    const reused = this.socket !== undefined && this.answeredOnSocket > 0;
    try {
      return await this.exchange(bytes, request.method);
    } catch (error) {
      // The server may close an idle keep-alive socket just as we write to it: nothing was
      // handled then, so the request is sent again on a fresh connection.
      if (reused && error instanceof SilentClose) return this.exchange(bytes, request.method);
      throw error;
    }
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private exchange(bytes: Buffer, method: string): Promise<RawResponse> {
    const socket = this.open();
    return new Promise<RawResponse>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        this.close();
        reject(new Error(`no answer within ${this.giveUpAfterMs} ms (the server hangs on this request)`));
      }, this.giveUpAfterMs);
      this.pending = {
        method,
        resolve: (response) => {
          clearTimeout(timer);
          resolve(response);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      socket.write(bytes);
    });
  }

  private open(): Socket {
    if (this.socket) return this.socket;
    const socket = connect(this.port, '127.0.0.1');
    socket.setNoDelay(true);
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.answeredOnSocket = 0;
    // Events of a socket this connection already let go of (closed, replaced) are not ours any more.
    socket.on('data', (chunk: Buffer) => {
      if (this.socket !== socket) return;
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.tryParse(false);
    });
    socket.on('error', () => undefined); // 'close' follows and settles the pending request
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.tryParse(true);
      const pending = this.pending;
      if (!pending) return;
      this.pending = undefined;
      if (this.buffer.length === 0) pending.reject(new SilentClose());
      else pending.resolve({ status: 0, headers: {}, body: this.buffer });
    });
    return socket;
  }

  /** Settles the pending request once a whole response is buffered (or the connection ended). */
  private tryParse(ended: boolean): void {
    const pending = this.pending;
    if (!pending) return;
    const headEnd = this.buffer.indexOf('\r\n\r\n');
    if (headEnd === -1) return;
    const lines = this.buffer.subarray(0, headEnd).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      if (colon === -1) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    }
    const rest = this.buffer.subarray(headEnd + 4);
    const body = readBody(pending.method, status, headers, rest, ended);
    if (body === undefined) return;
    this.pending = undefined;
    this.buffer = rest.subarray(body.consumed);
    this.answeredOnSocket++;
    // A server that says it closes is taken at its word; the next request opens a new socket.
    if (/\bclose\b/i.test(headers.connection ?? '')) this.close();
    pending.resolve({ status, headers, body: body.bytes });
  }
}

class SilentClose extends Error {
  constructor() {
    super('the server closed the connection without answering');
  }
}

/** The body of a response whose head is parsed, or undefined while more bytes are due. */
function readBody(method: string, status: number, headers: Record<string, string>, rest: Buffer, ended: boolean): { bytes: Buffer; consumed: number } | undefined {
  if (method.toUpperCase() === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) return { bytes: Buffer.alloc(0), consumed: 0 };
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) return readChunked(rest);
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    return rest.length >= length ? { bytes: rest.subarray(0, length), consumed: length } : undefined;
  }
  return ended ? { bytes: rest, consumed: rest.length } : undefined;
}

function readChunked(rest: Buffer): { bytes: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n', offset);
    if (lineEnd === -1) return undefined;
    const size = parseInt(rest.subarray(offset, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return { bytes: Buffer.concat(parts), consumed: rest.length };
    if (size === 0) {
      const end = rest.indexOf('\r\n\r\n', lineEnd);
      return end === -1 ? undefined : { bytes: Buffer.concat(parts), consumed: end + 4 };
    }
    if (rest.length < lineEnd + 2 + size + 2) return undefined;
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
}
