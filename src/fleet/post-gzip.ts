import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { shownUrl } from './fetch-bundle';

/**
 * POSTs a gzip-compressed JSON body and resolves on a 2xx answer, within `timeoutMs` for the
 * whole exchange; rejects with a message that holds nothing the server sent. The answer's body
 * is discarded unread, so a collector cannot make this process buffer anything.
 */
export function postGzip(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        req.destroy();
        reject(error);
      } else resolve();
    };
    const req = send(url, {
      method: 'POST',
      agent: false,
      headers: { 'user-agent': 'svcgate', ...headers, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) },
    });
    const timer = setTimeout(() => finish(new Error(`${shownUrl(url)} did not answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
    req.on('socket', (socket) => socket.unref());
    req.on('error', (error: NodeJS.ErrnoException) => finish(new Error(`${shownUrl(url)} cannot be reached (${error.code ?? 'connection failed'})`)));
    req.on('response', (response) => {
      response.resume();
      const status = response.statusCode ?? 0;
      finish(status >= 200 && status < 300 ? undefined : new Error(`${shownUrl(url)} answered ${status}`));
    });
    req.end(body);
  });
}
