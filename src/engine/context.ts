import type { Db } from '../store/database.js';
import { createAccountStore } from '../store/account-store.js';
import { createChatStore } from '../store/chat-store.js';
import { createFileStore } from '../store/file-store.js';
import { createJobStore } from '../store/job-store.js';
import { createMessageStore } from '../store/message-store.js';
import { createPartnerStore } from '../store/partner-store.js';
import { createQrLinkStore } from '../store/qr-link-store.js';
import { createSimStore } from '../store/sim-store.js';
import { createWorkspaceStore } from '../store/workspace-store.js';
import type { NetworkDriver } from '../network/driver.js';
import type { Clock, Random } from './clock.js';
import type { EventSink } from './events.js';
import type { EngineMetrics } from './engine-metrics.js';

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
  maxTextLength: 10_000,
  maxFileBytes: 25 * 1024 * 1024,
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
  db: Db;
  clock: Clock;
  random: Random;
  network: NetworkDriver;
  logger: Logger;
  config: EngineConfig;
  events: EventSink;
  stores: Stores;
  /** Where the engine reports attempts and backlogs (a no-op unless `svc serve` exports metrics). */
  metrics: EngineMetrics;
  /**
   * Asks this process's worker of that name (`send`) to run soon rather than at its next poll; a no-op until
   * the workers exist. Callable inside a write transaction: the run starts after the commit.
   */
  wake: (runnerName: string) => void;
}

export type Stores = ReturnType<typeof createStores>;

/** Prepares every aggregate's statements once for the life of the engine. */
export function createStores(db: Db) {
  return {
    workspaces: createWorkspaceStore(db),
    accounts: createAccountStore(db),
    chats: createChatStore(db),
    messages: createMessageStore(db),
    files: createFileStore(db),
    jobs: createJobStore(db),
    sim: createSimStore(db),
    partners: createPartnerStore(db),
    qrLinks: createQrLinkStore(db),
  };
}

export { inWriteTransaction } from '../store/transactions.js';
