/**
 * A URL as messages, warnings, status objects and health answers show it: scheme, host and path
 * only. Credentials travel in the other parts: a user and password, a presigned object-store
 * query (S3's `X-Amz-Signature`, an Azure SAS `sig`), a `?token=`, or a fragment.
 */
export function shownUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
