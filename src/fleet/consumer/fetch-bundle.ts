import { boundedExchange, readBounded } from '../../net/bounded-exchange';
import { shownUrl } from '../../net/shown-url';
import { BundleDownloadError } from './bundle-download-error';

export interface BundleRequest {
  url: URL;
  /** The ETag of the bundle the server sent last (the active one, or one refused): unchanged, it is answered 304 and not downloaded again. */
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
  const shown = shownUrl(url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return Promise.reject(new BundleDownloadError(`${shown} is not an http or https URL`));
  const headers: Record<string, string> = { accept: 'application/gzip, application/octet-stream', 'user-agent': 'svcgate', ...request.headers };
  if (request.etag !== undefined) headers['if-none-match'] = request.etag;
  const failures = {
    timeout: () => new BundleDownloadError(`${shown} did not answer in full within ${request.timeoutMs} ms`),
    unreachable: (code: string) => new BundleDownloadError(`${shown} cannot be reached (${code})`),
  };
  return boundedExchange<BundleResponse>({ url, method: 'GET', headers, timeoutMs: request.timeoutMs }, failures, (response, finish) => {
    const status = response.statusCode ?? 0;
    if (status === 304 && request.etag !== undefined) {
      response.resume();
      finish(undefined, { status: 304 });
      return;
    }
    if (status !== 200) {
      response.resume();
      const problem = status >= 300 && status < 400 ? `answered ${status} (redirects are not followed; configure the URL it points to)` : `answered ${status}, not 200`;
      finish(new BundleDownloadError(`${shown} ${problem}`, status));
      return;
    }
    const body = { tooLarge: () => new BundleDownloadError(`${shown} sent more than ${request.maxBytes} bytes (maxBytes)`), broken: () => new BundleDownloadError(`${shown} broke off its answer`) };
    readBounded(response, request.maxBytes, body, finish, (bytes) => {
      const etag = response.headers.etag;
      finish(undefined, { status: 200, bytes, etag: typeof etag === 'string' && etag.length <= 1024 ? etag : undefined });
    });
  });
}
