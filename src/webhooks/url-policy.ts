import { isIP } from 'node:net';
import { SvcError } from '../wire/errors.js';
import { isPublicAddress, stripDecorations } from './ip-address.js';

/**
 * `strict`: an instance a server without `--dev` has served (or an operator marked strict), for every process
 * on it; only https URLs that reach public addresses.
 * `dev`: `svc serve --dev` and the local embedded engine on an instance never marked strict; http and private
 * addresses are allowed so a developer can point a subscription at `http://localhost:3000`.
 */
export type UrlPolicyMode = 'strict' | 'dev';

/** Longest URL accepted; long enough for any real endpoint, short enough to keep rows and logs sane. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/**
 * The syntactic check made when a subscription is created or its URL updated. Returns the normalised URL
 * text. Addresses behind a host name are checked again at connect time (see guarded-dispatcher.ts),
 * because DNS can answer differently later.
 */
export function validateWebhookUrl(url: string, mode: UrlPolicyMode): string {
  if (typeof url !== 'string' || url.trim() === '') {
    throw invalidUrl('url is required', 'Pass the endpoint that should receive the POSTs, e.g. https://example.com/hooks');
  }
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    throw invalidUrl(`url is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw invalidUrl(`url "${url}" is not an absolute URL`, 'Use a full URL such as https://example.com/hooks');
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw invalidUrl(`url must use https (got ${parsed.protocol.replace(/:$/, '')})`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    // Credentials in the URL would be stored and shown in plain text; receivers should verify signatures.
    throw invalidUrl('url must not contain a user name or password', 'Verify the webhook-signature header instead');
  }
  if (mode === 'dev') return parsed.href;

  if (parsed.protocol !== 'https:') {
    throw invalidUrl(
      'url must use https on this server',
      'Use an https endpoint; this instance is strict (served without --dev): `svc webhooks listen` forwards events to a local app',
    );
  }
  const host = stripDecorations(parsed.hostname);
  if (isIP(host) !== 0 && !isPublicAddress(host)) {
    throw invalidUrl(
      `url points at ${host}, which is not a public address`,
      'Webhook endpoints must be publicly reachable; use `svc webhooks listen` to receive events locally',
    );
  }
  if (isIP(host) === 0 && isLocalName(host)) {
    throw invalidUrl(
      `url points at ${host}, which is not a public host`,
      'Webhook endpoints must be publicly reachable; use `svc webhooks listen` to receive events locally',
    );
  }
  return parsed.href;
}

/** Names that never resolve to a public address, caught early for a clearer message than a connect error. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return (
    !name.includes('.') ||
    name === 'localhost' ||
    name.endsWith('.localhost') ||
    name.endsWith('.local') ||
    name.endsWith('.internal') ||
    name.endsWith('.home.arpa')
  );
}

function invalidUrl(message: string, hint?: string): SvcError {
  return new SvcError('validation_error', message, hint === undefined ? {} : { hint });
}
