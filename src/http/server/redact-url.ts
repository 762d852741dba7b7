/**
 * Removes what carries a credential from a URL before it is logged or echoed in an error: the code of a QR
 * connection link (which alone connects an account), pre-signed download signatures, and tokens, secrets or
 * keys pasted into a query. Percent-encoding and doubled slashes do not hide either from it, since the router
 * decodes them too.
 */

// Query parameters whose value is a credential, matched on the decoded name.
const SECRET_PARAM = /^(?:.*(?:token|secret|signature|password|[_-]key)|sig|code|key)$/i;

const decode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const redactPath = (path: string): string => {
  const segments = path.split('/');
  const first = segments.findIndex((segment) => segment !== '');
  // `/connect/{code}/...`: the segment after `connect` is the link code.
  if (first === -1 || decode(segments[first]!).toLowerCase() !== 'connect') return path;
  if (segments[first + 1] !== undefined && segments[first + 1] !== '') segments[first + 1] = '[redacted]';
  return segments.join('/');
};

const redactQuery = (query: string): string =>
  query
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      return SECRET_PARAM.test(decode(pair.slice(0, equals).replace(/\+/g, ' '))) ? `${pair.slice(0, equals)}=[redacted]` : pair;
    })
    .join('&');

/** The URL (path and query, as Fastify's `request.url`) with every credential replaced by `[redacted]`. */
export const redactUrl = (url: string): string => {
  const hash = url.indexOf('#');
  const withoutHash = hash === -1 ? url : url.slice(0, hash);
  const mark = withoutHash.indexOf('?');
  if (mark === -1) return redactPath(withoutHash);
  return `${redactPath(withoutHash.slice(0, mark))}?${redactQuery(withoutHash.slice(mark + 1))}`;
};
