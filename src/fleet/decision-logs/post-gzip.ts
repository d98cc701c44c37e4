import { postBody } from '../../net/post-body';

/** POSTs a gzip-compressed JSON body (a decision-log batch); see postBody. */
export function postGzip(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs: number): Promise<void> {
  return postBody(url, body, { 'content-type': 'application/json', 'content-encoding': 'gzip' }, headers, timeoutMs);
}
