import type { SqlExecutor } from '../store/sql.js';
import type { BatchAdmission, SqlDatabase, WriteOptions } from '../store/sql-database.js';
import { createAccountStore } from '../store/account-store.js';
import { createChatStore } from '../store/chat-store.js';
import { createFileStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createSendQueueStore } from '../store/send-queue-store.js';
import { createMessageEventViews } from '../store/message-event-view.js';
import { createMessageStore } from '../store/message-store.js';
import { createPartnerStore } from '../store/partner-store.js';
import { createQrLinkStore } from '../store/qr-link-store.js';
import { createSimStore } from '../store/sim-store.js';
import { createWorkspaceStore } from '../store/workspace-store.js';
import { createListenStore } from '../store/webhooks/listen-store.js';
import { createStatsStore } from '../store/stats-store.js';
import { createOwnerMailStore } from '../store/owner-mail-store.js';
import { createMaintenanceStore } from '../store/maintenance-store.js';
import { createRateLimitStore } from '../store/rate-limit-store.js';
import { createSubscriptionStore } from '../store/webhooks/subscription-store.js';
import { createDeliveryStore } from '../store/webhooks/delivery-store.js';
import { createDeliveryLogStore } from '../store/webhooks/delivery-log-store.js';
import { generateMessageId } from '../webhooks/signature.js';
import type { NetworkDriver } from '../network/driver.js';
import type { Clock, Random } from '../wire/clock.js';
import type { DomainEvent } from './events.js';
import type { EngineMetrics } from './engine-metrics.js';
import type { DeliveryHandOff } from './webhooks/delivery-hand-off.js';
import type { SendHandOff } from './send-hand-off.js';
import { MAX_FILE_BYTES, MAX_TEXT_CHARACTERS } from '../wire/limits.js';

/** Settings of one engine instance; every field has a default in `defaultEngineConfig`. */
export interface EngineConfig {
  /** Origin of links handed out when no request origin is known (local engine). */
  publicUrl: string;
  /** Allows http and private-address webhook URLs (svc serve --dev and the local engine). */
  dev: boolean;
  localQuota: number;
  localSenderPhone: string;
  defaultQuota: number;
  /** Uniform random spacing between two sends of one account, unless the workspace sets its own. */
  sendSpacingMs: { min: number; max: number };
  /** How long a claimed send job stays leased before another process may take it over. */
  sendLeaseMs: number;
  maxTextLength: number;
  maxFileBytes: number;
  /** Bytes of live files a workspace may hold unless an operator set its own (`--storage-mb`). */
  defaultStorageBytes: number;
  downloadUrlTtlMs: number;
  webhookRetryDelaysMs: number[];
  /** Most webhook subscriptions one workspace (or partner) may hold; one more is a 409. */
  webhookSubscriptionLimit: number;
  /** Deliveries failed in a row (after all attempts) before the owner is notified. */
  webhookFailureNotifyThreshold: number;
}

export const defaultEngineConfig: EngineConfig = {
  publicUrl: 'http://127.0.0.1:8080',
  dev: false,
  localQuota: 1000,
  localSenderPhone: '+15550000001',
  defaultQuota: 1000,
  sendSpacingMs: { min: 1500, max: 2500 },
  sendLeaseMs: 30_000,
  maxTextLength: MAX_TEXT_CHARACTERS,
  maxFileBytes: MAX_FILE_BYTES,
  defaultStorageBytes: 1024 * 1024 * 1024,
  downloadUrlTtlMs: 15 * 60 * 1000,
  webhookRetryDelaysMs: [5000, 30_000],
  webhookSubscriptionLimit: 20,
  webhookFailureNotifyThreshold: 3,
};

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export const silentLogger: Logger = { info: () => undefined, error: () => undefined };

/** Everything a domain service needs: storage, time, randomness, the network and the event sink. */
export interface EngineContext {
  /** The engine's database: SQLite or PostgreSQL. Write transactions start here (`inWriteTransaction`). */
  database: SqlDatabase;
  /** Where this context's statements run: autocommit, or inside the write transaction it was made for. */
  sql: SqlExecutor;
  /** Every aggregate's statements on `sql`. */
  stores: Stores;
  /** True for the context of an open write transaction (`inWriteTransaction` hands one to its callback). */
  inTransaction: boolean;
  clock: Clock;
  random: Random;
  network: NetworkDriver;
  logger: Logger;
  config: EngineConfig;
  events: EventSink;
  /** Where the engine reports attempts and backlogs (a no-op unless `svc serve` exports metrics). */
  metrics: EngineMetrics;
  /**
   * Asks the workers of that name (`send`, `webhooks`) to run soon rather than at their next poll: this
   * process's, and on PostgreSQL every replica's. Inside a write transaction it takes effect after the commit.
   */
  wake: (runnerName: string) => void;
  /** PostgreSQL: where sends claimed as they are accepted go to this process's dispatcher (`SendHandOff`). */
  sendHandOff?: SendHandOff;
  /** PostgreSQL: where deliveries leased as they are written go to this process's webhook worker (`DeliveryHandOff`). */
  deliveryHandOff?: DeliveryHandOff;
  /**
   * Inside a write transaction: runs `fn` once the transaction has ended, told whether it committed (before the
   * wake-ups go out). A run that is retried is told it did not.
   */
  onSettled?: (fn: (committed: boolean) => void) => void;
  /**
   * A condition every write transaction started from this context must still meet when it runs: the request's
   * API token is still live, when it was let in from memory (`RecalledTokens`). A grouped write is checked with
   * its batch; any other one first thing in its transaction. Refused writes run nothing.
   */
  admission?: BatchAdmission;
}

/**
 * Runs `fn` in a write transaction with a context whose statements run inside it, and resolves after the
 * commit. Inside an open transaction it simply runs `fn` with that transaction's context: an error propagates
 * to the enclosing boundary, which undoes everything since. `fn` may run more than once (PostgreSQL retries
 * serialization failures), so it awaits only the database and leaves side effects to after the commit.
 */
export async function inWriteTransaction<T>(ctx: EngineContext, fn: (tx: EngineContext) => Promise<T>, options?: WriteOptions): Promise<T> {
  if (ctx.inTransaction) return fn(ctx);
  // Wake-ups asked for inside the transaction go out after the commit (on every replica, on PostgreSQL): a
  // worker woken earlier would look for rows it cannot see yet. A run that is retried forgets its own.
  let wakes = new Set<string>();
  let settled: Array<(committed: boolean) => void> = [];
  const onSettled = (fn: (committed: boolean) => void) => void settled.push(fn);
  const settle = (committed: boolean) => {
    const ending = settled;
    settled = [];
    for (const fn of ending) fn(committed);
  };
  const { admission } = ctx;
  const grouped = options?.grouped === true;
  let result: T;
  try {
    result = await ctx.database.write(async (sql) => {
      wakes = new Set();
      settle(false);
      if (!grouped) await assertAdmitted(sql, admission);
      return fn({ ...ctx, sql, stores: storesOf(sql), inTransaction: true, wake: (name) => void wakes.add(name), onSettled });
    }, admission !== undefined && grouped ? { ...options, admission } : options);
  } catch (error) {
    settle(false);
    throw error;
  }
  settle(true);
  for (const name of wakes) ctx.wake(name);
  return result;
}

/**
 * Throws `admission`'s refusal unless it holds now (one statement): for a write outside a batch, and for what a
 * request let in from memory reads before its write (the account a refused incoming message names).
 */
export async function assertAdmitted(sql: SqlExecutor, admission: BatchAdmission | undefined): Promise<void> {
  if (admission !== undefined && (await admission.check(sql, [admission.arg]))[0] !== true) throw admission.refusal();
}

/**
 * A row that the writes of one group commit all read alike (a workspace's default sender, the chat of an
 * account and phone): read once per transaction, then taken from the transaction's `memo`. Only rows found
 * are kept, and a savepoint rolled back forgets them all; outside a write transaction it simply reads.
 */
export async function readOnce<T>(ctx: EngineContext, key: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
  const memo = ctx.sql.memo;
  if (memo === undefined) return read();
  const held = memo.get(key) as T | undefined;
  if (held !== undefined) return held;
  const row = await read();
  if (row !== undefined) memo.set(key, row);
  return row;
}

export type Stores = ReturnType<typeof createStores>;

// SQLite hands every transaction the same executor: its stores are built once, not for every send.
const storesByExecutor = new WeakMap<SqlExecutor, Stores>();

function storesOf(sql: SqlExecutor): Stores {
  let stores = storesByExecutor.get(sql);
  if (stores === undefined) {
    stores = createStores(sql);
    storesByExecutor.set(sql, stores);
  }
  return stores;
}

/**
 * Every aggregate's store over one executor: the engine's autocommit one, or one transaction's. Made for
 * every transaction, so a store's factory builds nothing but the object: its statements are module constants.
 */
export function createStores(sql: SqlExecutor) {
  return {
    workspaces: createWorkspaceStore(sql),
    accounts: createAccountStore(sql),
    chats: createChatStore(sql),
    messages: createMessageStore(sql),
    messageEventViews: createMessageEventViews(sql),
    files: createFileStore(sql),
    jobs: createJobStore(sql),
    sendQueue: createSendQueueStore(sql),
    sim: createSimStore(sql),
    partners: createPartnerStore(sql),
    qrLinks: createQrLinkStore(sql),
    webhooks: createSubscriptionStore(sql),
    deliveries: createDeliveryStore(sql, generateMessageId),
    deliveryLog: createDeliveryLogStore(sql),
    listen: createListenStore(sql),
    stats: createStatsStore(sql),
    ownerMail: createOwnerMailStore(sql),
    maintenance: createMaintenanceStore(sql),
    rateLimits: createRateLimitStore(sql),
  };
}

/**
 * Receives every domain event inside the write transaction that caused it, so an outbox written here
 * commits or rolls back with the change itself.
 */
export interface EventSink {
  /** `tx` is the context of the write transaction the event happened in; the sink writes through it. */
  emit(tx: EngineContext, event: DomainEvent): Promise<void>;
}

export const ignoreEvents: EventSink = { emit: async () => undefined };
