/**
 * The two implementations of `WebhooksClient`: over the engine (local) and over HTTP. Both take what they
 * need from their SvcClient, so each SvcClient adds webhooks with one line. The partner clients reuse them
 * for `/partner/webhooks` (the partner's subscriptions, or the partner base URL).
 */
import type { WebhookSubscriptionsApi } from '../engine/webhooks/subscriptions.js';
import type { WebhooksClient } from './client.js';

/** Over the engine's subscriptions (`api` may find its scope first); errors are rejections, as over HTTP. */
export function localWebhooksClient(api: () => WebhookSubscriptionsApi | Promise<WebhookSubscriptionsApi>): WebhooksClient {
  const run = async <T>(fn: (api: WebhookSubscriptionsApi) => Promise<T>): Promise<T> => fn(await api());
  return {
    list: (page = 1) => run((a) => a.list(page)),
    create: (input) => run((a) => a.create(input)),
    get: (id) => run((a) => a.get(id)),
    update: (id, input) => run((a) => a.update(id, input)),
    delete: (id) => run((a) => a.delete(id)),
    secret: (id) => run((a) => a.secret(id)),
    deliveries: (id, page = 1) => run((a) => a.deliveries(id, page)),
    redeliver: (id, deliveryId) => run((a) => a.redeliver(id, deliveryId)),
    test: (id) => run((a) => a.test(id)),
    trigger: (eventType) => run((a) => a.trigger(eventType)),
  };
}

/** A JSON call of an HTTP client: method, URL (or a path its client prefixes), optional body; resolves with `data`. */
export type JsonCall = <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: object) => Promise<T>;

/** Speaks the webhook routes under `base` (e.g. `http://host/api`, or '' when `call` adds the base). */
export function httpWebhooksClient(call: JsonCall, base: string): WebhooksClient {
  const at = (path: string) => `${base}/webhooks${path}`;
  const id = (n: number) => `/${encodeURIComponent(String(n))}`;
  const page = (n: number | undefined) => (n === undefined ? '' : `?page=${encodeURIComponent(String(n))}`);
  return {
    list: (n) => call('GET', at(page(n))),
    create: (input) => call('POST', at(''), input),
    get: (n) => call('GET', at(id(n))),
    update: (n, input) => call('PUT', at(id(n)), input),
    delete: (n) => call('DELETE', at(id(n))),
    secret: (n) => call('GET', at(`${id(n)}/secret`)),
    deliveries: (n, p) => call('GET', at(`${id(n)}/deliveries${page(p)}`)),
    redeliver: (n, deliveryId) => call('POST', at(`${id(n)}/deliveries${id(deliveryId)}/redeliver`)),
    test: (n) => call('POST', at(`${id(n)}/test`)),
    trigger: (eventType) => call('POST', at('/trigger'), { event_type: eventType }),
  };
}
