/**
 * `svc webhooks listen` from the client's side: one interface, implemented over the local engine
 * (local-listen.ts, polling the database) and over a remote server (http-listen.ts, an SSE stream).
 */
import type { ListenDeliveryDto, ListenReportDto, ListenResultInput } from '../wire/listen-types.js';

export type { ListenDeliveryDto, ListenReportDto, ListenResultInput } from '../wire/listen-types.js';

/** What the transport is doing, for the listener's messages; only the remote one ever reconnects. */
export type ListenStatus =
  | { kind: 'connected'; reconnected: boolean }
  | { kind: 'reconnecting'; inMs: number; reason: string };

/** Options of `ListenClient.open`. */
export interface ListenOpenOptions {
  /** Event types; every workspace event when absent. */
  events?: string[] | undefined;
  onStatus?: ((status: ListenStatus) => void) | undefined;
  /** Local engine only: delays before retries of a failed forward (the server's own settings apply remotely). */
  retryDelaysMs?: readonly number[] | undefined;
}

/** An open session. Events can flow once `open` resolved; `close` removes everything it created. */
export interface ListenSession {
  readonly id: string;
  readonly secret: string;
  readonly events: readonly string[];
  /**
   * Deliveries in the order they are handed out, each to be forwarded and then reported. At-least-once: a
   * delivery whose report never arrived comes again. Ends after `close`; throws when the session is gone.
   */
  deliveries(): AsyncIterable<ListenDeliveryDto>;
  /** Records the local app's answer as that delivery's attempt (retries and `errors_counter` follow from it). */
  report(result: ListenResultInput): Promise<ListenReportDto>;
  /** Closes the session: its subscriptions and their pending deliveries are removed. Idempotent. */
  close(): Promise<void>;
}

/** Listen sessions of the client's workspace. */
export interface ListenClient {
  /** The workspace's listener signing secret (the same for every session). */
  secret(): Promise<string>;
  open(options?: ListenOpenOptions): Promise<ListenSession>;
}

/**
 * Skips a delivery handed out again while its first copy is being forwarded or was already reported (a
 * reconnect hands out what the dropped stream held). A retry has a higher attempt number, so it passes.
 */
export class DeliveryDeduper {
  private readonly seen = new Set<string>();

  constructor(private readonly capacity = 2000) {}

  private key(d: { id: number; attempt: number }): string {
    return `${d.id}:${d.attempt}`;
  }

  /** True the first time this attempt of this delivery is seen. */
  admit(delivery: ListenDeliveryDto): boolean {
    const key = this.key(delivery);
    if (this.seen.has(key)) return false;
    this.seen.add(key);
    // Oldest first out: a Set iterates in insertion order.
    if (this.seen.size > this.capacity) this.seen.delete(this.seen.values().next().value as string);
    return true;
  }

  /** Forgets a delivery: its report did not arrive, so when it is handed out again it must be forwarded again. */
  forget(deliveryId: number): void {
    for (const key of this.seen) if (key.startsWith(`${deliveryId}:`)) this.seen.delete(key);
  }
}

/** A queue read by one async iterator: `push` items, `end` it, or `fail` it with an error. */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private waiter: (() => void) | null = null;
  private ended = false;
  private error: unknown = undefined;

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake();
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const next = this.items.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => {
        this.waiter = resolve;
      });
    }
  }
}
