import type { ClaimedNotification } from '../store/owner-mail-store.js';

/** Subject and plain-text body of one owner e-mail. */
export interface OwnerMail {
  subject: string;
  text: string;
}

/** What the outbox records about a failing subscription (src/store/webhooks/delivery-attempts.ts). */
interface FailingDetails {
  url?: string;
  event_type?: string;
  consecutive_failures?: number;
  last_error?: string | null;
  last_status_code?: number | null;
  last_delivery_id?: number;
}

/**
 * The URL as the owner should see it in an e-mail: credentials and the query string are cut off, since
 * receivers often carry a token there and mail is neither private nor short-lived.
 */
export function displayUrl(raw: string): string {
  try {
    const url = new URL(raw);
    const hidden = url.search !== '' ? ' (query string not shown)' : '';
    return `${url.protocol}//${url.host}${url.pathname}${hidden}`;
  } catch {
    return '(not a valid URL)';
  }
}

function parseDetails(details: string | null): FailingDetails {
  if (details === null) return {};
  try {
    const parsed: unknown = JSON.parse(details);
    return typeof parsed === 'object' && parsed !== null ? (parsed as FailingDetails) : {};
  } catch {
    return {};
  }
}

/**
 * The e-mail for a `webhook_failing` notification: which subscription, how bad, and what to do. It is built
 * only from the notification's recorded details and ids; the signing secret and tokens are never read here.
 */
export function renderOwnerMail(n: ClaimedNotification): OwnerMail {
  if (n.kind === 'webhook_backlog') return renderBacklogMail(n);
  const d = parseDetails(n.details);
  const id = n.subscriptionId;
  const cli = n.partnerId === null ? 'svc webhooks' : 'svc partner webhooks';
  const failures = d.consecutive_failures ?? 0;
  // The recorded error usually names the status already ("receiver answered 500"); add it only when not.
  const status = typeof d.last_status_code === 'number' ? `HTTP status ${d.last_status_code}` : null;
  const error = typeof d.last_error === 'string' && d.last_error !== '' ? d.last_error : null;
  const last =
    error === null
      ? (status ?? 'unknown')
      : status === null || error.includes(String(d.last_status_code))
        ? error
        : `${error} (${status})`;
  const owner = n.partnerId === null ? `workspace "${n.ownerName}" (id ${n.workspaceId})` : `partner "${n.ownerName}"`;
  const lines = [
    'Hello,',
    '',
    `deliveries to a webhook subscription of your ${owner} keep failing.`,
    '',
    `  Subscription:     ${id}`,
    `  Event type:       ${d.event_type ?? 'unknown'}`,
    `  URL:              ${d.url === undefined ? 'unknown' : displayUrl(d.url)}`,
    `  Failed in a row:  ${failures} deliveries (each after all of its attempts)`,
    `  Last error:       ${last}`,
    ...(d.last_delivery_id === undefined ? [] : [`  Last delivery:    ${d.last_delivery_id}`]),
    '',
    'The subscription stays enabled: new events are still sent to it, and every failure counts in its',
    'errors_counter. What to do:',
    '',
    '  1. Check that the endpoint is up, is reachable from the server, answers with a 2xx status within',
    '     5 seconds, and does not redirect.',
    `  2. Read the attempt log:          ${cli} deliveries ${id}`,
    `  3. Once it works again, resend:   ${cli} redeliver ${id} DELIVERY_ID`,
    `     (or queue a sample event:      ${cli} test ${id})`,
    '',
    'You get this message once each time the subscription reaches the failure threshold; a successful',
    'delivery resets the count.',
    '',
    '-- svc',
  ];
  return { subject: `[svc] Webhook ${id} is failing: ${failures} deliveries in a row`, text: `${lines.join('\n')}\n` };
}

/** The e-mail for a `webhook_backlog` notification: deliveries are queuing up faster than the receivers take them. */
function renderBacklogMail(n: ClaimedNotification): OwnerMail {
  const d = parseDetails(n.details) as FailingDetails & { pending?: number; bound?: number; oldest_age_sec?: number; subscription_pending?: number };
  const owner = n.partnerId === null ? `workspace "${n.ownerName}" (id ${n.workspaceId})` : `partner "${n.ownerName}"`;
  const cli = n.partnerId === null ? 'svc webhooks' : 'svc partner webhooks';
  const lines = [
    'Hello,',
    '',
    `webhook deliveries of your ${owner} are queuing up faster than your receivers take them.`,
    '',
    `  Queued now:        ${d.pending ?? 'unknown'} deliveries (the bound is ${d.bound ?? 'unknown'})`,
    `  Oldest waiting:    ${d.oldest_age_sec ?? 'unknown'} s`,
    `  Most behind:       subscription ${n.subscriptionId}, ${d.url === undefined ? 'unknown URL' : displayUrl(d.url)} (${d.subscription_pending ?? '?'} queued)`,
    '',
    'Nothing is lost: every event stays queued until it is delivered. What to do:',
    '',
    '  1. Check that your receivers answer quickly (well under 5 seconds) with a 2xx status.',
    `  2. Read the attempt log:   ${cli} deliveries ${n.subscriptionId}`,
    '',
    'You get this message once each time the backlog passes the bound.',
    '',
    '-- svc',
  ];
  return { subject: `[svc] Webhook deliveries are falling behind: ${d.pending ?? 'many'} queued`, text: `${lines.join('\n')}\n` };
}
