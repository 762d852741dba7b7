import type { SvcClient } from './client.js';
import type { Engine } from '../engine/engine-api.js';
import type { ListenSessionsApi } from '../engine/webhooks/listen-sessions.js';
import { SvcError } from '../wire/errors.js';
import { openEngine } from '../runtime/open-engine.js';
import { redactDatabaseUrl } from '../store/postgres/database-url.js';
import { localWebhooksClient } from './webhooks-clients.js';
import { createLocalListenClient } from './local-listen.js';

export interface LocalClientOptions {
  dataDir: string;
  /** A `postgres://` URL: the engine runs on that database instead of `dataDir`. */
  databaseUrl?: string;
  /** A Public API token of a workspace in this database; without it the Local workspace is used. */
  token?: string;
  /** A workspace id in this database (whoever can read the data directory may act for any workspace). */
  workspaceId?: number;
  /** How long a write waits for another process's SQLite lock (the engine's default otherwise). */
  busyTimeoutMs?: number;
  /** Start the background workers (default true). */
  workers?: boolean;
  /**
   * Make HTTP webhook deliveries too (default false). A CLI command never does: it would wait on receivers or
   * leave claimed deliveries behind; `svc serve` delivers. A client kept open for long (tests) may.
   */
  deliverWebhooks?: boolean;
}

/**
 * The embedded engine as an SvcClient. Opening it creates the Local workspace on first use and starts the
 * background workers, so queued messages go out while this process lives; HTTP webhook deliveries are left to
 * `svc serve` (or `svc dev`) unless `deliverWebhooks` is set.
 */
export async function openLocalClient(options: LocalClientOptions): Promise<SvcClient> {
  const engine = await openEngine({
    dataDir: options.dataDir,
    // Development URLs unless the instance is strict (a server without --dev served it): the instance decides.
    dev: true,
    deliverWebhooks: options.deliverWebhooks === true,
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  try {
    // Resolved on first use: `svc sim scan` needs no workspace (the link names it), so it must not create one.
    // The promise is kept, so concurrent first uses resolve it once; a failure is not kept (the next call retries).
    let workspaceId: Promise<number> | undefined;
    const workspace = (): Promise<number> => {
      workspaceId ??= resolveWorkspace(engine, options).catch((error: unknown) => {
        workspaceId = undefined;
        throw error;
      });
      return workspaceId;
    };
    if (options.workers !== false) engine.workers.start();
    return createLocalClient(engine, workspace, localTarget(options), () => engine.close());
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/** How errors name the local engine: its data directory, or its database URL without the password. */
export const localTarget = (options: { dataDir: string; databaseUrl?: string | undefined }): string =>
  `local engine (${options.databaseUrl === undefined ? options.dataDir : redactDatabaseUrl(options.databaseUrl)})`;

async function resolveWorkspace(engine: Engine, options: LocalClientOptions): Promise<number> {
  if (options.token !== undefined && options.token !== '') {
    const workspaceId = await engine.authenticate(options.token);
    if (workspaceId === null) {
      throw new SvcError('unauthorized', 'The API token was refused by the local engine', {
        hint: 'check --token, or leave it out to use the Local workspace',
      });
    }
    return workspaceId;
  }
  if (options.workspaceId !== undefined) {
    await engine.workspace(options.workspaceId).getWorkspace(); // rejects with not_found for an unknown workspace
    return options.workspaceId;
  }
  return (await engine.ensureLocalWorkspace()).workspace_id;
}

/** Wraps one workspace of an engine (its id, or how to find it on first use) as an SvcClient. */
export function createLocalClient(
  engine: Engine,
  workspace: number | (() => Promise<number>),
  target: string,
  close: () => Promise<void>,
): SvcClient {
  const workspaceId = typeof workspace === 'number' ? async () => workspace : workspace;
  const api = async () => engine.workspace(await workspaceId());
  const simApi = async () => engine.sim(await workspaceId());
  return {
    target,
    sendToPhone: async (input) => (await api()).sendToPhone(input),
    sendToChatName: async (input) => (await api()).sendToChatName(input),
    sendToChat: async (chatId, input) => (await api()).sendToChat(chatId, input),
    getMessage: async (uid) => (await api()).getMessage(uid),
    listChats: async (page = 1) => (await api()).listChats(page),
    getChat: async (chatId) => (await api()).getChat(chatId),
    updateChat: async (chatId, input) => (await api()).updateChat(chatId, input),
    listChatMessages: async (chatId, page = 1) => (await api()).listChatMessages(chatId, page),
    uploadFile: async (input) => (await api()).uploadFile(input),
    listFiles: async (page = 1) => (await api()).listFiles(page),
    getFile: async (uid) => (await api()).getFile(uid),
    deleteFile: async (uid) => (await api()).deleteFile(uid),
    listAccounts: async (page = 1) => (await api()).listAccounts(page),
    getWorkspace: async () => (await api()).getWorkspace(),
    listTemplates: async (page = 1) => (await api()).listTemplates(page),
    createTemplate: async (input) => (await api()).createTemplate(input),
    sim: {
      connect: async (input) => (await simApi()).connect(input),
      receive: async (input) => (await simApi()).receive(input),
      react: async (input) => (await simApi()).react(input),
      disconnect: async (phone) => (await simApi()).disconnect(phone),
      suspend: async (phone) => (await simApi()).suspend(phone),
      resume: async (phone) => (await simApi()).resume(phone),
      setUnreachable: async (phone, unreachable) => (await simApi()).setUnreachable(phone, unreachable),
      scan: async (input) => engine.connect.scan(input),
    },
    webhooks: localWebhooksClient(async () => engine.webhooks(await workspaceId())),
    listen: createLocalListenClient(() => deferredListen(async () => engine.listen(await workspaceId()))),
    close,
  };
}

/** The listen sessions of a workspace that is found on first use: every call waits for it first. */
const deferredListen = (scope: () => Promise<ListenSessionsApi>): ListenSessionsApi => ({
  secret: async () => (await scope()).secret(),
  open: async (input) => (await scope()).open(input),
  get: async (id) => (await scope()).get(id),
  claim: async (id) => (await scope()).claim(id),
  takeOver: async (id) => (await scope()).takeOver(id),
  report: async (id, input, options) => (await scope()).report(id, input, options),
  close: async (id) => (await scope()).close(id),
});
