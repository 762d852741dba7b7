/**
 * Wake-ups of one engine: "there is new work for the `send` dispatcher", "a delivery was queued" (`webhooks`,
 * which `webhooks listen` streams follow too), "a QR link changed" (`connect`). In one process they are
 * function calls. On PostgreSQL every wake-up is also NOTIFYed, so a send accepted on one replica reaches the
 * dispatcher and the listen streams of every other replica at once instead of at their next poll.
 */
import { randomBytes } from 'node:crypto';
import type { SqlDatabase } from '../store/sql-database.js';
import type { Logger } from '../engine/context.js';

/** How long wake-ups are gathered before they are NOTIFYed (other replicas hear them this much later). */
const NOTIFY_GATHER_MS = 5;

/** What a subscriber receives after the notification connection came back: anything may have changed. */
export const WAKE_EVERYTHING = '*';

export interface WakeBus {
  /** Wakes this process's subscribers now and, on PostgreSQL, every replica's a moment later. */
  wake(topic: string): void;
  /** Calls `handler` with each topic woken here or on another replica; returns the unsubscribe. */
  subscribe(handler: (topic: string) => void): () => void;
  close(): void;
}

/**
 * `listen`: hear other replicas' wake-ups (one more PostgreSQL connection, held open). A short-lived CLI
 * command leaves it off: it still announces its own work, so a send made by `svc send --database` reaches
 * the replicas' dispatchers at once.
 */
export function createWakeBus(database: SqlDatabase, logger: Logger, options: { listen: boolean }): WakeBus {
  const handlers = new Set<(topic: string) => void>();
  const deliver = (topic: string): void => {
    for (const handler of [...handlers]) handler(topic);
  };
  const notifications = database.notifications;
  // A NOTIFY reaches its sender too; this process has already woken its own subscribers, so it skips what
  // carries its own mark (the payload is `MARK TOPIC`).
  const mark = randomBytes(6).toString('hex');
  // Topics woken within a few milliseconds go out together, one NOTIFY each in one statement: a stream of
  // accepted sends costs the database one notifying commit every few milliseconds, not one per send or topic.
  let outgoing = new Set<string>();
  let flushScheduled = false;
  let closed = false;
  const flush = async (): Promise<void> => {
    flushScheduled = false;
    const topics = [...outgoing];
    outgoing = new Set();
    // A lost wake-up only delays work until the next poll; it is not worth failing anything for.
    await notifications!.notify(database.sql, topics.map((topic) => `${mark} ${topic}`)).catch((error: unknown) => {
      logger.error('wake-up notification failed', { topics: topics.join(' '), error: String(error) });
    });
  };
  const unsubscribe = !options.listen ? undefined : notifications?.subscribe((payload) => {
    if (closed) return;
    const [from, topic] = payload.split(' ', 2);
    if (topic === undefined) deliver(payload); // WAKE_EVERYTHING, after a reconnect
    else if (from !== mark) deliver(topic);
  });

  return {
    wake(topic) {
      deliver(topic);
      if (notifications === undefined || closed) return;
      outgoing.add(topic);
      if (flushScheduled) return;
      flushScheduled = true;
      setTimeout(() => void flush(), NOTIFY_GATHER_MS);
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    close() {
      closed = true;
      unsubscribe?.();
      handlers.clear();
    },
  };
}
