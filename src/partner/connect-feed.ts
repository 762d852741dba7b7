import type { Clock } from '../wire/clock.js';
import {
  CONNECT_EVENTS_HEARTBEAT_MS,
  connectEventAt,
  connectEventChanged,
  connectEventsHeartbeat,
  connectEventsPreamble,
  formatConnectEvent,
  isFinalConnectEvent,
  type ConnectEvent,
} from './connect-events.js';
import type { QrLinkFacts } from './pairing.js';

/** A link as the feed reads it each time; null once it no longer exists. */
export type ConnectFeedSnapshot = { link: QrLinkFacts; phone: string | null } | null;

/** Runs `fn` every `ms` until the returned function is called. */
export type Repeat = (fn: () => void, ms: number) => () => void;

const realRepeat: Repeat = (fn, ms) => {
  const handle = setInterval(fn, ms);
  return () => clearInterval(handle);
};

/** What one `/connect/{code}/events` stream needs; `send` and `end` write to the HTTP response. */
export interface ConnectFeedOptions {
  code: string;
  readLink: () => ConnectFeedSnapshot | Promise<ConnectFeedSnapshot>;
  clock: Clock;
  send: (chunk: string) => void;
  end: () => void;
  /** How often the link is re-read. Polling the database (not an in-process event) also sees a scan made by
   * another process, such as `svc sim scan` in a terminal. */
  pollMs?: number;
  repeat?: Repeat;
}

/** A running feed: `check` re-reads now (call it on an engine event for instant updates), `stop` on disconnect. */
export interface ConnectFeed {
  check(): Promise<void>;
  stop(): void;
}

/**
 * Starts the event stream of one connect page: the preamble, then the current state, then only changes
 * (each pairing rotation, then connected, expired or revoked, after which the stream ends).
 */
export function startConnectFeed(options: ConnectFeedOptions): ConnectFeed {
  const repeat = options.repeat ?? realRepeat;
  let last: ConnectEvent | null = null;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();

  const stop = () => {
    if (stopped) return;
    stopped = true;
    stopPolling();
    stopHeartbeat();
  };

  const checkOnce = async () => {
    if (stopped) return;
    const snapshot = await options.readLink();
    if (stopped) return;
    const next: ConnectEvent =
      snapshot === null
        ? { type: 'revoked' }
        : await connectEventAt({ code: options.code, link: snapshot.link, phone: snapshot.phone, now: options.clock.now() });
    if (stopped || !connectEventChanged(last, next)) return;
    last = next;
    options.send(formatConnectEvent(next));
    if (isFinalConnectEvent(next)) {
      stop();
      options.end();
    }
  };
  // Checks run one after another, so a slow QR render can never send an older payload after a newer one.
  const check = () => {
    running = running.then(checkOnce, checkOnce);
    return running;
  };

  options.send(connectEventsPreamble());
  const stopPolling = repeat(() => void check().catch(() => undefined), options.pollMs ?? 1_000);
  const stopHeartbeat = repeat(() => {
    if (!stopped) options.send(connectEventsHeartbeat());
  }, CONNECT_EVENTS_HEARTBEAT_MS);
  void check().catch(() => undefined);
  return { check, stop };
}
