/**
 * What the HTTP clients make of a base URL. The server root (`http://host:8080`, what `svc serve` prints
 * first) stands for its API; and when the server answers a request with its route miss, the base URL is what
 * is wrong, so the error says which base to pass instead of leaving the user to read the server's route table.
 */

/** The two APIs a client can be pointed at, with the setting that names each one's base. */
export const AREAS = {
  '/api': { setting: '--base-url (SVC_BASE_URL)' },
  '/partner': { setting: '--partner-base-url (SVC_PARTNER_BASE_URL)' },
} as const;

export type Area = keyof typeof AREAS;

/**
 * A base URL without a path gets `area` appended. Any other path is taken as given (a proxy may mount svc
 * elsewhere), so a wrong one is reported by `routeMissHint` rather than guessed at.
 */
export const withAreaPath = (baseUrl: string, area: Area): string => {
  const trimmed = baseUrl.replace(/\/+$/, '');
  try {
    return new URL(trimmed).pathname === '/' ? `${trimmed}${area}` : trimmed;
  } catch {
    return trimmed;
  }
};

/**
 * The hint for an svc error body that is the server's route miss (`No route ...`, or a 405 for a method the
 * client always sends right), or undefined for any other error (a chat that does not exist is not a base
 * URL problem). `target` is the base URL in use, without credentials.
 */
export function routeMissHint(body: { error_code: string; message: string; hint?: string | undefined }, target: string, area: Area): string | undefined {
  const missed = (body.error_code === 'not_found' && body.message.startsWith('No route ')) || body.error_code === 'method_not_allowed';
  if (!missed) return undefined;
  let origin: string;
  try {
    origin = new URL(target).origin;
  } catch {
    return undefined;
  }
  const server = body.hint === undefined ? '' : ` (the server says: ${body.hint})`;
  return `${target} is not the ${area} base of this svc server: pass ${AREAS[area].setting} ${origin}${area}, or just ${origin}${server}`;
}
