import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A provider's metadata or key set is a few KiB; an answer of more is refused before it is parsed. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;

export interface FetchLimits {
  /** For the whole exchange: connecting, the answer's headers and its whole body. */
  timeoutMs: number;
  maxBytes: number;
}

/**
 * A JSON document could not be fetched. `problem` says what happened in words that hold nothing
 * the server sent (no body text), so it can go into logs and warnings as it is.
 */
export class RemoteJsonError extends Error {
  readonly code = 'ERR_SVCGATE_REMOTE_JSON';
  override readonly name = 'RemoteJsonError';

  constructor(
    /** The URL without its user and password. */
    readonly url: string,
    readonly problem: string,
    /** Only a 4xx/5xx answer: the server is there but has no such document (discovery then tries the next place). */
    readonly status?: number,
  ) {
    super(`${url} ${problem}`);
  }
}

/**
 * GETs `url` and parses the body as JSON, within a time limit for the whole exchange and a byte
 * limit counted while the body arrives, so a server that never answers, trickles, or sends a huge
 * body costs at most those. Only a 200 is an answer: redirects are not followed, since the URL is
 * the one the configuration trusts. The request holds no timer or socket that keeps the process
 * alive: a check at start-up must not delay a process that wants to exit.
 */
export function fetchJsonBounded(url: URL, limits: FetchLimits): Promise<unknown> {
  const shown = displayUrl(url);
  const request = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
  if (request === undefined) return Promise.reject(new RemoteJsonError(shown, 'is not an http or https URL'));

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: RemoteJsonError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(value);
    };
    // agent: false, so no pooled socket outlives the exchange.
    const req = request(url, { method: 'GET', agent: false, headers: { accept: 'application/json', 'user-agent': 'svcgate' } });
    const timer = setTimeout(() => finish(new RemoteJsonError(shown, `did not answer in full within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    timer.unref();
    req.on('socket', (socket) => socket.unref());
    req.on('error', (error: NodeJS.ErrnoException) => finish(new RemoteJsonError(shown, `cannot be reached (${error.code ?? 'connection failed'})`)));
    req.on('response', (response) => readBody(response, limits.maxBytes, shown, finish));
    req.end();
  });
}

function readBody(response: IncomingMessage, maxBytes: number, shown: string, finish: (error: RemoteJsonError | undefined, value?: unknown) => void): void {
  const status = response.statusCode ?? 0;
  if (status !== 200) {
    const problem = status >= 300 && status < 400 ? `answered ${status} (redirects are not followed; configure the URL it points to)` : `answered ${status}, not 200`;
    finish(new RemoteJsonError(shown, problem, status >= 400 ? status : undefined));
    return;
  }
  const tooLarge = () => new RemoteJsonError(shown, `sent more than ${maxBytes} bytes`);
  if (Number(response.headers['content-length']) > maxBytes) {
    finish(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) finish(tooLarge());
    else chunks.push(chunk);
  });
  response.on('error', () => finish(new RemoteJsonError(shown, 'broke off its answer')));
  response.on('close', () => {
    if (!response.complete) finish(new RemoteJsonError(shown, 'broke off its answer'));
  });
  response.on('end', () => {
    try {
      finish(undefined, JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))));
    } catch {
      finish(new RemoteJsonError(shown, 'did not send UTF-8 JSON'));
    }
  });
}

/** A URL may carry a user and password; messages and warnings never show them. */
export function displayUrl(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
