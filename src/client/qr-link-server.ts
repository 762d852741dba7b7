/**
 * The Public API base of the server a QR link names: `https://host/prefix/connect/CODE` is served by
 * `https://host/prefix`, whose API is `https://host/prefix/api` (and its `/sim` beside it). Null for anything
 * that is not an http(s) link to a connect page.
 */
export function apiBaseOfQrLink(link: string): string | null {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const match = /^(.*)\/connect\/[^/]+\/?$/.exec(url.pathname);
  return match === null ? null : `${url.origin}${match[1]}/api`;
}
