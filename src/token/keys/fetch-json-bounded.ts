import { boundedExchange, readBounded } from '../../net/bounded-exchange';
import { shownUrl } from '../../net/shown-url';

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
  const shown = shownUrl(url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new RemoteJsonError(shown, 'is not an http or https URL'));
  const failures = {
    timeout: () => new RemoteJsonError(shown, `did not answer in full within ${limits.timeoutMs} ms`),
    unreachable: (code: string) => new RemoteJsonError(shown, `cannot be reached (${code})`),
  };
  const exchange = { url, method: 'GET' as const, headers: { accept: 'application/json', 'user-agent': 'svcgate' }, timeoutMs: limits.timeoutMs };
  return boundedExchange<unknown>(exchange, failures, (response, finish) => {
    const status = response.statusCode ?? 0;
    if (status !== 200) {
      const problem = status >= 300 && status < 400 ? `answered ${status} (redirects are not followed; configure the URL it points to)` : `answered ${status}, not 200`;
      finish(new RemoteJsonError(shown, problem, status >= 400 ? status : undefined));
      return;
    }
    const body = { tooLarge: () => new RemoteJsonError(shown, `sent more than ${limits.maxBytes} bytes`), broken: () => new RemoteJsonError(shown, 'broke off its answer') };
    readBounded(response, limits.maxBytes, body, finish, (bytes) => {
      try {
        finish(undefined, JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
      } catch {
        finish(new RemoteJsonError(shown, 'did not send UTF-8 JSON'));
      }
    });
  });
}
