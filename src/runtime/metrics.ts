/**
 * Prometheus metrics of one `svc serve` (prom-client, its own registry so several servers in one process do
 * not mix). Counters and histograms are fed as work happens (EngineMetrics, the HTTP hook); queue depths are
 * read from the database when the text is rendered, so they include other processes' work on the same database.
 * No label ever carries a tenant, token or URL: the endpoint may be unauthenticated.
 *
 * A render costs milliseconds (the database read, prom-client's process metrics, every histogram's buckets):
 * an unauthenticated flood of 500 scrapes a second once raised the p50 of a SQLite send from 1.7 to about
 * 30 ms. So the text is rendered at most once per `minRenderIntervalMs` and shared by every scrape in that
 * interval, concurrent ones included: however many scrapers, the database is read at most once a second.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { EngineMetrics, QueueStats } from '../engine/engine-metrics.js';
import { registerEventLoopLag } from './event-loop-lag.js';

export interface ServerMetrics {
  readonly registry: Registry;
  readonly engine: EngineMetrics;
  /** One HTTP request done: `route` is the route pattern (`/api/chats/:id`), never the raw URL. */
  httpRequest(method: string, route: string, status: number, seconds: number): void;
  /** Reads queue depths from here at each render. */
  watchQueues(read: () => Promise<QueueStats>, now: () => number): void;
  /** The Prometheus text: rendered anew at most once per `minRenderIntervalMs`, else the last one. */
  render(): Promise<string>;
  /** Stops sampling the event loop: the server has closed. */
  close(): void;
}

/** Options of `createServerMetrics`. */
export interface ServerMetricsOptions {
  /** A scrape this soon after the last render gets that render's text (default 1 s; Prometheus scrapes every 15 s or so). */
  minRenderIntervalMs?: number;
  /** Clock of that interval (tests pass a fake one). */
  now?: () => number;
}

const DEFAULT_MIN_RENDER_INTERVAL_MS = 1000;

/**
 * How often the event loop's lag is sampled for `svc_nodejs_eventloop_lag_*` (`./event-loop-lag.ts`). prom-client's
 * default, 10 ms, wakes an idle server about 100 times a second for that alone; a stall still shows in full (it
 * delays the pending sample by its length), and a scrape every 15 s still gets 150 samples.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;
/** prom-client's own sampling of the lag, whose figures `registerEventLoopLag` replaces: once a minute, so it costs nothing. */
const REPLACED_SAMPLE_MS = 60_000;

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];
/** A send's queue time: milliseconds for an unspaced account (finer at the low end), seconds behind spacing. */
const SEND_LATENCY_BUCKETS = [0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function createServerMetrics(options: ServerMetricsOptions = {}): ServerMetrics {
  const minRenderIntervalMs = options.minRenderIntervalMs ?? DEFAULT_MIN_RENDER_INTERVAL_MS;
  const clock = options.now ?? Date.now;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'svc_', eventLoopMonitoringPrecision: REPLACED_SAMPLE_MS });
  const stopSamplingLag = registerEventLoopLag(registry, 'svc_', EVENT_LOOP_SAMPLE_MS);
  const attempts = new Counter({ name: 'svc_webhook_attempts_total', help: 'Webhook delivery attempts by outcome', labelNames: ['outcome'], registers: [registry] });
  const attemptSeconds = new Histogram({ name: 'svc_webhook_attempt_duration_seconds', help: 'Time one webhook POST took', buckets: LATENCY_BUCKETS, registers: [registry] });
  const deliverySeconds = new Histogram({
    name: 'svc_webhook_delivery_latency_seconds',
    help: 'From the event being queued to its successful delivery',
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const sendSeconds = new Histogram({
    name: 'svc_send_latency_seconds',
    help: 'From a message being accepted to the network taking it (sent) or refusing it (failed)',
    labelNames: ['outcome'],
    buckets: SEND_LATENCY_BUCKETS,
    registers: [registry],
  });
  const overBound = new Gauge({ name: 'svc_webhook_tenants_over_backlog_bound', help: 'Tenants whose pending deliveries passed the backlog bound', registers: [registry] });
  const http = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });
  const depth = new Gauge({ name: 'svc_queue_depth', help: 'Work queued now, by queue and state', labelNames: ['queue', 'state'], registers: [registry] });
  const oldest = new Gauge({ name: 'svc_queue_oldest_age_seconds', help: 'Age of the oldest queued item, by queue', labelNames: ['queue'], registers: [registry] });

  let collectQueues = async (): Promise<void> => undefined;
  let last: { at: number; text: Promise<string> } | undefined;
  return {
    registry,
    engine: {
      webhookAttempt(outcome, durationMs, sinceQueuedMs) {
        attempts.inc({ outcome });
        attemptSeconds.observe(durationMs / 1000);
        if (outcome === 'succeeded') deliverySeconds.observe(sinceQueuedMs / 1000);
      },
      webhookBacklog: (tenants) => overBound.set(tenants),
      messageFinished: (outcome, sinceAcceptedMs) => sendSeconds.observe({ outcome }, sinceAcceptedMs / 1000),
    },
    httpRequest: (method, route, status, seconds) => http.observe({ method, route, status: String(status) }, seconds),
    watchQueues(read, now) {
      // Run by each render; the gauges are reset first so a queue that emptied reads 0, not its last value.
      collectQueues = async () => {
        const stats = await read();
        depth.reset();
        oldest.reset();
        const at = clock();
        const oldestOf = new Map<string, number>();
        for (const kind of ['workspace', 'partner', 'listen'] as const) {
          for (const state of ['pending', 'delivering'] as const) depth.set({ queue: `webhook_${kind}`, state }, 0);
        }
        for (const row of stats.webhooks) {
          depth.set({ queue: `webhook_${row.kind}`, state: row.status }, row.count);
          if (row.status === 'pending' && row.oldestCreatedAt !== null) oldestOf.set(`webhook_${row.kind}`, row.oldestCreatedAt);
        }
        depth.set({ queue: 'send', state: 'queued' }, stats.sends.count);
        if (stats.sends.oldestCreatedAt !== null) oldestOf.set('send', stats.sends.oldestCreatedAt);
        depth.set({ queue: 'owner_mail', state: 'pending' }, stats.ownerMail.count);
        for (const queue of ['webhook_workspace', 'webhook_partner', 'webhook_listen', 'send']) {
          const created = oldestOf.get(queue);
          oldest.set({ queue }, created === undefined ? 0 : Math.max(0, (at - created) / 1000));
        }
      };
    },
    render: () => {
      const at = clock();
      if (last === undefined || at - last.at >= minRenderIntervalMs || at < last.at) {
        const text = collectQueues().then(() => registry.metrics());
        last = { at, text };
        // A failed render (the database did not answer) is not kept: the next scrape tries again.
        text.catch(() => {
          if (last?.text === text) last = undefined;
        });
      }
      return last.text;
    },
    close: stopSamplingLag,
  };
}
