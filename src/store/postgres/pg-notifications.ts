/**
 * Cross-replica wake-ups over LISTEN/NOTIFY. One dedicated connection per process listens on one channel;
 * payloads are short topic strings (`send`, `webhooks`, `listen:<session>`, `connect:<link>`). The connection
 * is opened on the first subscription (a short CLI command never opens it) and reopened with backoff when the
 * server restarts; after a reconnect every subscriber is woken once, since notifications sent while the
 * connection was down are lost and subscribers must look at the database again.
 */
import type { Client, ClientConfig } from 'pg';

export const NOTIFY_CHANNEL = 'svc_wake';

export type NotificationHandler = (topic: string) => void;

export interface PgNotificationsOptions {
  /** Creates an unconnected client for the listening connection. */
  newClient: () => Client;
  onError?: (error: unknown) => void;
  /** Longest wait between two reconnection attempts. */
  maxBackoffMs?: number;
}

/** The topic every subscriber receives after a reconnect. */
export const RESYNC_TOPIC = '*';

export class PgNotifications {
  private readonly handlers = new Set<NotificationHandler>();
  private client: Client | undefined;
  private connecting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoffMs = 100;
  private stopped = false;

  constructor(private readonly options: PgNotificationsOptions) {}

  /** Calls `handler` with each topic notified by any process (this one included); returns an unsubscribe. */
  subscribe(handler: NotificationHandler): () => void {
    this.handlers.add(handler);
    if (this.client === undefined && this.connecting === undefined && !this.stopped) void this.connect();
    return () => void this.handlers.delete(handler);
  }

  /** Resolves once the listening connection is up (tests use it to avoid racing the first NOTIFY). */
  async ready(): Promise<void> {
    if (this.client === undefined && this.connecting === undefined && !this.stopped) void this.connect();
    await this.connecting;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private connect(): Promise<void> {
    this.connecting = (async () => {
      const client = this.options.newClient();
      client.on('notification', (message) => {
        if (message.channel === NOTIFY_CHANNEL) this.dispatch(message.payload ?? '');
      });
      client.on('error', (error) => this.lost(client, error));
      client.on('end', () => this.lost(client, undefined));
      try {
        await client.connect();
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        if (this.stopped) {
          await client.end().catch(() => undefined);
          return;
        }
        const reconnected = this.backoffMs > 100;
        this.client = client;
        this.backoffMs = 100;
        if (reconnected) this.dispatch(RESYNC_TOPIC);
      } catch (error) {
        await client.end().catch(() => undefined);
        this.lost(client, error);
      }
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private lost(client: Client, error: unknown): void {
    if (error !== undefined) this.options.onError?.(error);
    if (this.client !== undefined && this.client !== client) return;
    this.client = undefined;
    if (this.stopped || this.timer !== undefined) return;
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 5000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped && this.connecting === undefined) void this.connect();
    }, wait);
    this.timer.unref();
  }

  private dispatch(topic: string): void {
    for (const handler of this.handlers) {
      try {
        handler(topic);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }
}

/** The listening client's settings: the pool's, without a statement timeout that would cut the idle LISTEN. */
export const listenerConfig = (config: ClientConfig): ClientConfig => ({ ...config, keepAlive: true });
