import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { openDatabase, schemaVersion, type Db } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import type { RecordAttemptInput } from '../../src/store/webhooks/delivery-attempts.js';
import { openDeliveryOutbox, type DeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import type { DeliveryStore } from '../../src/store/webhooks/delivery-store.js';
import { DEFAULT_FAILURE_NOTIFY_THRESHOLD, nextAttemptAt } from '../../src/webhooks/retry-schedule.js';
import { generateMessageId } from '../../src/webhooks/signature.js';

/** A request a test receiver saw. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP receiver on 127.0.0.1, port 0; `handle` answers each request after its body is read. */
export async function startReceiver(
  handle: (req: ReceivedRequest, res: ServerResponse) => void = (_req, res) => res.end('ok'),
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() };
      requests.push(received);
      handle(received, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A database (in memory by default) with the core schema and migration 002, applied here until it is registered. */
export function openWebhooksDb(path = ':memory:'): Db {
  const db = openDatabase(path);
  const applied = db.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'webhook_deliveries'`).get() !== undefined;
  if (schemaVersion(db) < 2 && !applied) db.exec(MIGRATIONS.find((m) => m.version === 2)!.sql);
  return db;
}

/**
 * The outbox on a database from `openWebhooksDb` (in memory by default): `db` is the raw handle for setting up
 * and inspecting rows, `queue` the autocommit delivery store (enqueue, redeliver, nextDueAt), `outbox` what
 * workers use (claims and records, each in one write transaction).
 */
export function openOutbox(path = ':memory:'): { db: Db; database: SqliteDatabase; queue: DeliveryStore; outbox: DeliveryOutbox } {
  const db = openWebhooksDb(path);
  const database = new SqliteDatabase(db);
  const outbox = openDeliveryOutbox(database, generateMessageId);
  return { db, database, queue: outbox.deliveries, outbox };
}

/** The rules a recorded attempt follows unless a test says otherwise: the default retry schedule and notify threshold. */
export const DEFAULT_ATTEMPT_RULES: Pick<RecordAttemptInput, 'retryAt' | 'failureNotifyThreshold'> = {
  retryAt: (attemptNumber, failedAt) => nextAttemptAt(attemptNumber, failedAt),
  failureNotifyThreshold: DEFAULT_FAILURE_NOTIFY_THRESHOLD,
};

/** Inserts a workspace and returns its id. */
export function insertWorkspace(db: Db, now = 0): number {
  const result = db
    .prepare(`INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, ?, ?)`)
    .run(now, now);
  return Number(result.lastInsertRowid);
}

/** Inserts a subscription and returns its id. */
export function insertSubscription(
  db: Db,
  input: { workspaceId: number; eventType?: string; url?: string; enabled?: boolean; secret?: string; listenSessionId?: string | null },
): number {
  const result = db
    .prepare(
      `INSERT INTO webhook_subscriptions (workspace_id, event_type, url, enabled, secret, listen_session_id, created_at, updated_at)
       VALUES (@workspaceId, @eventType, @url, @enabled, @secret, @listenSessionId, 0, 0)`,
    )
    .run({
      workspaceId: input.workspaceId,
      eventType: input.eventType ?? 'message:new',
      url: input.url ?? 'https://hooks.example.com/a',
      enabled: input.enabled === false ? 0 : 1,
      secret: input.secret ?? 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      listenSessionId: input.listenSessionId ?? null,
    });
  return Number(result.lastInsertRowid);
}
