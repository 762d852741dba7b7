import { sendWebhook } from '../webhooks/http-sender.js';
import type { ListenDeliveryDto, ListenResultInput } from '../wire/listen-types.js';

/** Where a listener forwards deliveries, and the extra headers (`--headers`) it adds. */
export interface ForwardTarget {
  url: string;
  headers: Readonly<Record<string, string>>;
}

/**
 * POSTs one delivery to the local app exactly as a subscribed endpoint would get it: the signed body and
 * Standard Webhooks headers, with the same rules (5 s timeout, redirects not followed, only 2xx counts).
 * The signature headers win over `--headers` of the same name, so a typo cannot break verification silently.
 */
export async function forwardDelivery(delivery: ListenDeliveryDto, target: ForwardTarget): Promise<ListenResultInput> {
  const outcome = await sendWebhook({
    url: target.url,
    headers: { 'user-agent': 'svc-webhooks-listen/1', ...target.headers, ...delivery.headers },
    body: delivery.payload,
  });
  return { delivery_id: delivery.id, status_code: outcome.statusCode, duration_ms: outcome.durationMs, error: outcome.error };
}
