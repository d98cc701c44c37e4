import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BundleDownloadError } from './bundle-download-error';

export interface BundleRequest {
  url: URL;
  /** The ETag of the bundle active now: an unchanged bundle is answered 304 and not downloaded again. */
  etag?: string;
  headers: Record<string, string>;
  /** For the whole exchange: connecting, the answer's headers and its whole body. */
  timeoutMs: number;
  maxBytes: number;
}

export type BundleResponse = { status: 304 } | { status: 200; bytes: Buffer; etag: string | undefined };

/**
 * One conditional GET of a bundle, bounded in time and bytes: a bundle server that never answers,
 * trickles or sends more than `maxBytes` costs at most those. Redirects are not followed (the
 * configured URL is the one trusted); no socket or timer keeps the process alive.
 */
export function fetchBundle(request: BundleRequest): Promise<BundleResponse> {
  const { url } = request;
  const send = url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined;
  if (send === undefined) return Promise.reject(new BundleDownloadError(`${shownUrl(url)} is not an http or https URL`));

  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error: BundleDownloadError | undefined, response?: BundleResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve(response!);
    };
    const headers: Record<string, string> = { accept: 'application/gzip, application/octet-stream', 'user-agent': 'svcgate', ...request.headers };
    if (request.etag !== undefined) headers['if-none-match'] = request.etag;
    const req = send(url, { method: 'GET', agent: false, headers });
    const timer = setTimeout(() => finish(new BundleDownloadError(`${shownUrl(url)} did not answer in full within ${request.timeoutMs} ms`)), request.timeoutMs);
    timer.unref();
    req.on('socket', (socket) => socket.unref());
    req.on('error', (error: NodeJS.ErrnoException) => finish(new BundleDownloadError(`${shownUrl(url)} cannot be reached (${error.code ?? 'connection failed'})`)));
    req.on('response', (response) => readAnswer(response, request, finish));
    req.end();
  });
}

function readAnswer(response: IncomingMessage, request: BundleRequest, finish: (error: BundleDownloadError | undefined, response?: BundleResponse) => void): void {
  const shown = shownUrl(request.url);
  const status = response.statusCode ?? 0;
  if (status === 304 && request.etag !== undefined) {
    response.resume();
    finish(undefined, { status: 304 });
    return;
  }
  if (status !== 200) {
    response.resume();
    const problem = status >= 300 && status < 400 ? `answered ${status} (redirects are not followed; configure the URL it points to)` : `answered ${status}, not 200`;
    finish(new BundleDownloadError(`${shown} ${problem}`));
    return;
  }
  const tooLarge = () => new BundleDownloadError(`${shown} sent more than ${request.maxBytes} bytes (maxBytes)`);
  if (Number(response.headers['content-length']) > request.maxBytes) {
    finish(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > request.maxBytes) finish(tooLarge());
    else chunks.push(chunk);
  });
  response.on('error', () => finish(new BundleDownloadError(`${shown} broke off its answer`)));
  response.on('close', () => {
    if (!response.complete) finish(new BundleDownloadError(`${shown} broke off its answer`));
  });
  response.on('end', () => {
    const etag = response.headers.etag;
    finish(undefined, { status: 200, bytes: Buffer.concat(chunks), etag: typeof etag === 'string' && etag.length <= 1024 ? etag : undefined });
  });
}

/** Messages and status never show a user and password of the URL. */
export function shownUrl(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
