import { boundedExchange } from '../../net/bounded-exchange';
import { shownUrl } from '../../net/shown-url';

/**
 * POSTs a gzip-compressed JSON body and resolves on a 2xx answer, within `timeoutMs` for the
 * whole exchange; rejects with a message that holds nothing the server sent. The answer's body
 * is discarded unread, so a collector cannot make this process buffer anything.
 */
export function postGzip(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const shown = shownUrl(url);
  const exchange = {
    url,
    method: 'POST' as const,
    headers: { 'user-agent': 'svcgate', ...headers, 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) },
    body,
    timeoutMs,
  };
  const failures = { timeout: () => new Error(`${shown} did not answer within ${timeoutMs} ms`), unreachable: (code: string) => new Error(`${shown} cannot be reached (${code})`) };
  return boundedExchange<void>(exchange, failures, (response, finish) => {
    response.resume();
    const status = response.statusCode ?? 0;
    finish(status >= 200 && status < 300 ? undefined : new Error(`${shown} answered ${status}`));
  });
}
