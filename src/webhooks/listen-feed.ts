/**
 * The server side of a `svc webhooks listen` stream: polls the session's due deliveries and writes them as
 * Server-Sent Events. Polling the database (not an in-process signal) is what makes events written by other
 * processes on the same data directory (an admin command, a second server) reach the listener too.
 */
import type { ListenDeliveryDto } from '../wire/listen-types.js';
import { isSvcError } from '../wire/errors.js';

/** How often an idle stream says it is alive; the client treats three missed heartbeats as a dead stream. */
export const LISTEN_HEARTBEAT_MS = 10_000;
export const LISTEN_POLL_MS = 200;

/** One event of the stream: `ready` once, `delivery` per handed-out delivery, `heartbeat`, `closed` at the end. */
export type ListenStreamEvent =
  | { type: 'ready'; session_id: string; heartbeat_ms: number }
  | { type: 'delivery'; delivery: ListenDeliveryDto }
  | { type: 'heartbeat' }
  | { type: 'closed'; reason: string };

/** One event in text/event-stream form; JSON.stringify never emits a newline, so one data line suffices. */
export function formatListenEvent(event: ListenStreamEvent): string {
  if (event.type === 'delivery') return `event: delivery\nid: ${event.delivery.id}\ndata: ${JSON.stringify(event.delivery)}\n\n`;
  const { type, ...data } = event;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export interface ListenFeedOptions {
  sessionId: string;
  /** Leases the session's due deliveries; rejects once the session is gone. */
  claim: () => Promise<ListenDeliveryDto[]>;
  /** Writes a chunk; false means the socket buffer is full, so polling pauses until `drained` is called. */
  send: (chunk: string) => boolean;
  end: () => void;
  pollMs?: number;
  heartbeatMs?: number;
  onError?: (error: unknown) => void;
}

/** A running feed: `drained` resumes after backpressure, `stop` ends it (idempotent). */
export interface ListenFeed {
  drained(): void;
  /** Polls now rather than at the next tick (a delivery was queued, here or on another replica). */
  poke(): void;
  stop(): void;
}

/** Starts pushing deliveries of one session until `stop`, or until the session disappears. */
export function startListenFeed(options: ListenFeedOptions): ListenFeed {
  const pollMs = options.pollMs ?? LISTEN_POLL_MS;
  const heartbeatMs = options.heartbeatMs ?? LISTEN_HEARTBEAT_MS;
  let stopped = false;
  let blocked = false;
  let lastWrite = Date.now();

  const write = (event: ListenStreamEvent): void => {
    lastWrite = Date.now();
    if (!options.send(formatListenEvent(event))) blocked = true;
  };

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    options.end();
  };

  // One poll at a time: a claim that outlasts the interval (a busy database) is not joined by another.
  let polling = false;
  // A poke during a poll: that poll may have read before the new delivery committed, so poll once more.
  let pokedWhilePolling = false;
  const tick = async (): Promise<void> => {
    if (polling) pokedWhilePolling = true;
    if (stopped || blocked || polling) return;
    polling = true;
    let deliveries: ListenDeliveryDto[];
    try {
      deliveries = await options.claim();
    } catch (error) {
      if (stopped) return;
      // A busy database or the like: try again on the next tick; leases keep what was claimed safe.
      if (!isSvcError(error) || error.code !== 'not_found') return void options.onError?.(error);
      // The session was closed (or expired) elsewhere: say so, so the client stops instead of reconnecting.
      write({ type: 'closed', reason: error instanceof Error ? error.message : String(error) });
      stop();
      return;
    } finally {
      polling = false;
      if (pokedWhilePolling) {
        pokedWhilePolling = false;
        setImmediate(poll);
      }
    }
    // Stopped while the claim was under way: what it leased is handed out again when the lease runs out.
    if (stopped) return;
    for (const delivery of deliveries) write({ type: 'delivery', delivery });
    if (Date.now() - lastWrite >= heartbeatMs) write({ type: 'heartbeat' });
  };
  const poll = (): void => void tick();

  const timer = setInterval(poll, pollMs);
  write({ type: 'ready', session_id: options.sessionId, heartbeat_ms: heartbeatMs });
  poll();
  return {
    drained: () => {
      blocked = false;
    },
    poke: poll,
    stop,
  };
}
