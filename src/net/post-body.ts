import { boundedExchange } from './bounded-exchange';
import { shownUrl } from './shown-url';

/** A non-2xx answer; `status` is the HTTP status, for reports that carry it (OPA's `http_code`). */
export class PostAnswerError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/**
 * POSTs `body` with `contentHeaders` (its type and encoding) and resolves on a 2xx answer, within
 * `timeoutMs` for the whole exchange; rejects with a message that holds nothing the server sent
 * and only the shown URL. The answer's body is never read: the connection is closed once the
 * status line is in, so a collector can make this process neither buffer anything nor keep a socket
 * open by never ending (or trickling) its body.
 */
export function postBody(url: URL, body: Buffer, contentHeaders: Record<string, string>, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  const shown = shownUrl(url);
  const exchange = {
    url,
    method: 'POST' as const,
    headers: { 'user-agent': 'svcgate', ...headers, ...contentHeaders, 'content-length': String(body.length) },
    body,
    timeoutMs,
  };
  const failures = { timeout: () => new Error(`${shown} did not answer within ${timeoutMs} ms`), unreachable: (code: string) => new Error(`${shown} cannot be reached (${code})`) };
  return boundedExchange<void>(exchange, failures, (response, finish) => {
    // Not resume(): a body that never ends kept the connection, one more at every report.
    response.destroy();
    const status = response.statusCode ?? 0;
    finish(status >= 200 && status < 300 ? undefined : new PostAnswerError(`${shown} answered ${status}`, status));
  });
}
