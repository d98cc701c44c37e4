/** A URL may carry a user and password; messages, warnings and status objects never show them. */
export function shownUrl(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}
