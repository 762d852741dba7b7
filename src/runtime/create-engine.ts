import type { SqlDatabase } from '../store/sql-database.js';
import type { NetworkDriver } from '../network/driver.js';
import { SimDriver } from '../network/sim-driver.js';
import { createSendDispatcher } from '../workers/send-dispatcher.js';
import { createWebhookRunner } from '../workers/webhook-runner.js';
import { createOwnerMailer, type OwnerMailerOptions } from '../workers/owner-mailer.js';
import type { SmtpSettings } from '../workers/smtp.js';
import { createWorkerRunner, REPLICA_IDLE_POLL_MS, type JobRunner } from '../workers/worker-runner.js';
import { createWakeBus, WAKE_EVERYTHING } from './wake-bus.js';
import { WEBHOOKS_WAKE } from '../engine/webhooks/runtime.js';
import { createMaintenanceRunner } from '../workers/maintenance.js';
import { createPlannerStatisticsRunner } from '../workers/planner-statistics.js';
import type { SendFn } from '../webhooks/delivery-worker.js';
import type { ResolveHost } from '../webhooks/guarded-dispatcher.js';
import { listAccounts } from '../engine/accounts.js';
import { listChats, chatDto, chatOfWorkspace, updateChat } from '../engine/chats.js';
import { systemClock, systemRandom, type Clock, type Random } from '../wire/clock.js';
import {
  createStores,
  defaultEngineConfig,
  ignoreEvents,
  silentLogger,
  type EngineConfig,
  type EngineContext,
  type EventSink,
  type Logger,
  type Stores,
} from '../engine/context.js';
import type { Engine, WorkspaceApi } from '../engine/engine-api.js';
import { noMetrics, type EngineMetrics, type QueueStats } from '../engine/engine-metrics.js';
import { createTemplate, deleteFile, download, getFile, listFiles, listTemplates, uploadFile } from '../engine/files.js';
import { createInbound } from '../engine/inbound.js';
import { getMessage, listChatMessages, sendToChat, sendToChatName, sendToPhone } from '../engine/messages.js';
import { createConnectApi, createPartnerApi, createPartnerDirectory } from '../engine/partner/partner-api.js';
import { createPartner } from '../engine/partner/partners.js';
import { instanceSettingsDto, readInstanceSettings, updateInstanceSettings } from '../engine/instance-settings.js';
import { createSimApi } from '../engine/sim-api.js';
import { authenticateTokenHash, hashToken, plausibleToken } from '../engine/tokens.js';
import { RecalledTokens } from '../engine/recalled-tokens.js';
import { listenSessions } from '../engine/webhooks/listen-sessions.js';
import { createWebhookEventSink } from '../engine/webhooks/event-sink.js';
import { workspaceSubscriptions } from '../engine/webhooks/subscriptions.js';
import { createWorkspace, ensureLocalWorkspace, updateWorkspace, workspaceDto } from '../engine/workspaces.js';

/** The parts an engine is built from; everything but `database` has a default. */
export interface EngineParts {
  /** SQLite (SqliteDatabase) or PostgreSQL (PgDatabase); the engine closes it on close. */
  database: SqlDatabase;
  clock?: Clock;
  random?: Random;
  /** Defaults to the sim driver, backed by this database. */
  network?: NetworkDriver;
  logger?: Logger;
  config?: Partial<EngineConfig>;
  /** Receives domain events inside their transactions (the webhook outbox). */
  events?: (ctx: EngineContext) => EventSink;
  /** Extra background work beside the send dispatcher and the webhook worker. */
  runners?: (ctx: EngineContext) => JobRunner[];
  /** Outbound webhook HTTP; defaults to undici through the address-checking dispatcher. */
  webhookSend?: SendFn;
  /** DNS behind the default sender's connect-time address check; tests inject a rebinding resolver. */
  webhookResolveHost?: ResolveHost;
  /** Where owner notifications are e-mailed; without it they are only recorded in owner_notifications. */
  smtp?: SmtpSettings;
  /** Tuning (and, in tests, the clock-driven retry delays) of the owner mailer; used only with `smtp`. */
  ownerMailer?: OwnerMailerOptions;
  /** Receives what the engine reports as it works (svc serve's Prometheus metrics). */
  metrics?: EngineMetrics;
  /** A long-running server that shares its database: it listens for the other replicas' wake-ups. */
  replica?: boolean;
  /** Run the HTTP webhook worker with the other workers (default true; one-shot commands leave it out). */
  deliverWebhooks?: boolean;
}

/** Builds an engine from its parts. The caller owns the lifecycle: `workers.start()` and `close()`. */
export function createEngine(parts: EngineParts): Engine & { context: EngineContext } {
  const { database } = parts;
  const stores = createStores(database.sql);
  const clock = parts.clock ?? systemClock;
  const ctx: EngineContext = {
    database,
    sql: database.sql,
    stores,
    inTransaction: false,
    clock,
    random: parts.random ?? systemRandom,
    network:
      parts.network ??
      new SimDriver({
        // Autocommit statements: the driver's state is read and written outside the engine's transactions.
        handOverRun: (run) => stores.sim.handOverRun(run),
        now: () => clock.now(),
      }),
    logger: parts.logger ?? silentLogger,
    config: { ...defaultEngineConfig, ...parts.config },
    events: ignoreEvents,
    metrics: parts.metrics ?? noMetrics,
    wake: () => undefined,
    // SQLite claims in a fraction of a millisecond: only PostgreSQL claims sends as it accepts them.
    ...(database.dialect === 'postgres' && { sendHandOff: {}, deliveryHandOff: {} }),
  };
  // The webhook outbox is the default sink: every engine (local and served) records deliveries.
  ctx.events = parts.events?.(ctx) ?? createWebhookEventSink(ctx, ignoreEvents);
  ctx.network.start(createInbound(ctx));
  // A PostgreSQL replica hears every other replica's wake-ups, so its polls may slow down while they find nothing.
  const idlePollMs = database.dialect === 'postgres' && parts.replica === true ? REPLICA_IDLE_POLL_MS : undefined;
  const webhookRunner = createWebhookRunner(ctx, {
    idlePollMs,
    ...(parts.webhookSend === undefined ? {} : { send: parts.webhookSend }),
    ...(parts.webhookResolveHost === undefined ? {} : { resolveHost: parts.webhookResolveHost }),
  });
  const mailer = parts.smtp === undefined ? [] : [createOwnerMailer(ctx, parts.smtp, parts.ownerMailer)];
  const workers = createWorkerRunner(
    [
      createSendDispatcher(ctx),
      ...(parts.deliverWebhooks === false ? [] : [webhookRunner]),
      createMaintenanceRunner(ctx),
      ...(ctx.database.dialect === 'postgres' ? [createPlannerStatisticsRunner(ctx)] : []),
      ...mailer,
      ...(parts.runners?.(ctx) ?? []),
    ],
    clock,
    ctx.logger,
    { idlePollMs },
  );
  // Work made in this process is picked up at once; on PostgreSQL, work made by other replicas too.
  const wakeBus = createWakeBus(database, ctx.logger, { listen: parts.replica === true });
  ctx.wake = (topic) => wakeBus.wake(topic);
  wakeBus.subscribe((topic) => {
    if (topic === WAKE_EVERYTHING) for (const name of ['send', WEBHOOKS_WAKE]) workers.wake(name);
    else workers.wake(topic);
  });

  // Only where a lookup is a round trip: SQLite answers it from memory already (its read cache), and there the
  // batch's check cost a fifth of the send rate (9,652 -> 7,738 sends/s, wrk -c32).
  const recalledTokens = database.dialect === 'postgres' ? new RecalledTokens(() => clock.now()) : undefined;
  const authenticate = async (token: string, options: { recall?: boolean } = {}): Promise<number | null> => {
    if (!plausibleToken(token)) return null;
    const hash = hashToken(token);
    const recalled = options.recall === true ? recalledTokens?.recall(hash) : undefined;
    if (recalled !== undefined) return recalled;
    const workspaceId = await authenticateTokenHash(stores.workspaces, hash);
    if (workspaceId !== null) recalledTokens?.confirm(hash, workspaceId);
    return workspaceId;
  };
  // What the writes of a request let in with `token` check again (none on SQLite, which never recalls).
  const admissionOf = (token: string | undefined, workspaceId: number) =>
    token === undefined ? undefined : recalledTokens?.admission(token, workspaceId);

  const workspace = (workspaceId: number, options: { linkBase?: string; token?: string } = {}): WorkspaceApi => {
    const linkBase = options.linkBase ?? ctx.config.publicUrl;
    // Sends made with a token let in from memory check it again in their batch (`RecalledTokens`).
    const admission = admissionOf(options.token, workspaceId);
    const sendCtx = admission === undefined ? ctx : { ...ctx, admission };
    return {
      // async: a validation error thrown before the first await still reaches the caller as a rejection.
      sendToPhone: async (input) => sendToPhone(sendCtx, workspaceId, input),
      sendToChatName: async (input) => sendToChatName(sendCtx, workspaceId, input),
      sendToChat: async (chatId, input) => sendToChat(sendCtx, workspaceId, chatId, input),
      getMessage: async (uid) => getMessage(ctx, workspaceId, uid),
      listChats: async (page = 1) => listChats(ctx, workspaceId, page),
      getChat: async (chatId) => chatDto(ctx, await chatOfWorkspace(ctx, workspaceId, chatId)),
      updateChat: async (chatId, input) => updateChat(ctx, workspaceId, chatId, input),
      listChatMessages: async (chatId, page = 1) => listChatMessages(ctx, workspaceId, chatId, page),
      uploadFile: async (input) => uploadFile(ctx, workspaceId, input),
      listFiles: async (page = 1) => listFiles(ctx, workspaceId, page),
      getFile: async (uid) => getFile(ctx, workspaceId, uid, linkBase),
      deleteFile: async (uid) => deleteFile(ctx, workspaceId, uid),
      listAccounts: async (page) => listAccounts(ctx, workspaceId, page),
      getWorkspace: async () => workspaceDto(ctx, workspaceId),
      listTemplates: async (page = 1) => listTemplates(ctx, workspaceId, page),
      createTemplate: async (input) => createTemplate(ctx, workspaceId, input),
    };
  };

  let closed = false;
  return {
    context: ctx,
    clock,
    get webhookUrlPolicy() {
      return ctx.config.dev ? 'dev' : 'strict';
    },
    authenticate,
    ensureLocalWorkspace: async () => ensureLocalWorkspace(ctx),
    workspace,
    webhooks: (workspaceId) => workspaceSubscriptions(ctx, workspaceId),
    listen: (workspaceId) => listenSessions(ctx, workspaceId),
    sim: (workspaceId, options = {}) => createSimApi(ctx, workspaceId, admissionOf(options.token, workspaceId)),
    admin: {
      createWorkspace: async (input) => createWorkspace(ctx, input),
      updateWorkspace: async (workspaceId, input) => updateWorkspace(ctx, workspaceId, input),
      createPartner: async (input) => createPartner(ctx, input),
      instanceSettings: async () => instanceSettingsDto(await readInstanceSettings(ctx.sql)),
      updateInstanceSettings: async (update) => instanceSettingsDto(await updateInstanceSettings(ctx.sql, clock, update)),
    },
    partners: createPartnerDirectory(ctx),
    partner: (partnerId, options = {}) => createPartnerApi(ctx, partnerId, options.linkBase ?? ctx.config.publicUrl),
    connect: createConnectApi(ctx),
    download: async (uid, expires, signature) => download(ctx, uid, expires, signature),
    workers,
    onWake: (handler) => wakeBus.subscribe(handler),
    checkDatabase: () => database.ping(),
    ...(database.dialect === 'postgres' ? { sharedRateLimits: stores.rateLimits } : {}),
    queueStats: () => queueStats(stores.stats),
    usePublicUrl(url) {
      ctx.config.publicUrl = url.replace(/\/+$/, '');
    },
    async close() {
      if (closed) return;
      closed = true;
      wakeBus.close();
      await workers.stop();
      await ctx.network.stop();
      await database.close();
    },
  };
}

async function queueStats(stats: Stores['stats']): Promise<QueueStats> {
  const sends = await stats.sends();
  const webhooks = await stats.webhooks();
  return {
    webhooks: webhooks.map((row) => ({ kind: row.kind, status: row.status, count: row.count, oldestCreatedAt: row.oldest })),
    sends: { count: sends.count, oldestCreatedAt: sends.oldest },
    ownerMail: await stats.ownerMail(),
  };
}
