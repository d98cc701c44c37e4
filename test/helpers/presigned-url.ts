/** Secrets as they ride in URLs: a user and password, S3's and Azure's presigned queries, a token, a fragment. */
export const URL_SECRETS = ['svc-user', 'pa55word', 'AMZ-SIGNATURE-VALUE', 'AZURE-SAS-SIG', 'QUERY-TOKEN', 'FRAGMENT-SECRET'];

/** `url` (http://127.0.0.1:<port>/<path>) with every kind of credential a URL can carry. */
export function presigned(url: string): string {
  const { host, pathname } = new URL(url);
  return `http://svc-user:pa55word@${host}${pathname}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=AMZ-SIGNATURE-VALUE&sv=2022-11-02&sig=AZURE-SAS-SIG&token=QUERY-TOKEN#FRAGMENT-SECRET`;
}

/** Fails with the secret found in `text`, if any; a query or fragment shown at all is a failure too. */
export function expectNoUrlSecret(text: string): void {
  for (const secret of URL_SECRETS) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/\?X-Amz|[?&]sig=|[?&]token=|#/);
}
