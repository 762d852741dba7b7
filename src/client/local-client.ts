import type { SvcClient } from './client.js';
import type { Engine } from '../engine/engine-api.js';
import { SvcError } from '../engine/errors.js';
import { openEngine } from '../runtime/open-engine.js';
import { localWebhooksClient } from './webhooks-clients.js';
import { createLocalListenClient } from './local-listen.js';

export interface LocalClientOptions {
  dataDir: string;
  /** A Public API token of a workspace in this database; without it the Local workspace is used. */
  token?: string;
  /** A workspace id in this database (whoever can read the data directory may act for any workspace). */
  workspaceId?: number;
}

/**
 * The embedded engine as an SvcClient. Opening it creates the Local workspace on first use and starts the
 * background workers, so queued messages go out while this process lives.
 */
export async function openLocalClient(options: LocalClientOptions): Promise<SvcClient> {
  const engine = openEngine({ dataDir: options.dataDir, dev: true });
  try {
    // Resolved on first use: `svc sim scan` needs no workspace (the link names it), so it must not create one.
    let workspaceId: number | undefined;
    const workspace = () => (workspaceId ??= resolveWorkspace(engine, options));
    engine.workers.start();
    return createLocalClient(engine, workspace, `local engine (${options.dataDir})`, () => engine.close());
  } catch (error) {
    await engine.close();
    throw error;
  }
}

function resolveWorkspace(engine: Engine, options: LocalClientOptions): number {
  if (options.token !== undefined && options.token !== '') {
    const workspaceId = engine.authenticate(options.token);
    if (workspaceId === null) {
      throw new SvcError('unauthorized', 'The API token was refused by the local engine', {
        hint: 'check --token, or leave it out to use the Local workspace',
      });
    }
    return workspaceId;
  }
  if (options.workspaceId !== undefined) {
    engine.workspace(options.workspaceId).getWorkspace(); // throws not_found for an unknown workspace
    return options.workspaceId;
  }
  return engine.ensureLocalWorkspace().workspace_id;
}

/** Wraps one workspace of an engine; the engine's synchronous answers become promises. */
export function createLocalClient(engine: Engine, workspace: number | (() => number), target: string, close: () => Promise<void>): SvcClient {
  const workspaceId = typeof workspace === 'number' ? () => workspace : workspace;
  const api = new LazyApi(() => engine.workspace(workspaceId()));
  const simApi = new LazyApi(() => engine.sim(workspaceId()));
  const run = async <T>(fn: () => T): Promise<T> => fn();
  return {
    target,
    sendToPhone: (input) => run(() => api.get().sendToPhone(input)),
    sendToChatName: (input) => run(() => api.get().sendToChatName(input)),
    sendToChat: (chatId, input) => run(() => api.get().sendToChat(chatId, input)),
    getMessage: (uid) => run(() => api.get().getMessage(uid)),
    listChats: (page = 1) => run(() => api.get().listChats(page)),
    getChat: (chatId) => run(() => api.get().getChat(chatId)),
    updateChat: (chatId, input) => run(() => api.get().updateChat(chatId, input)),
    listChatMessages: (chatId, page = 1) => run(() => api.get().listChatMessages(chatId, page)),
    uploadFile: (input) => run(() => api.get().uploadFile(input)),
    listFiles: (page = 1) => run(() => api.get().listFiles(page)),
    getFile: (uid) => run(() => api.get().getFile(uid)),
    deleteFile: (uid) => run(() => api.get().deleteFile(uid)),
    listAccounts: (page = 1) => run(() => api.get().listAccounts(page)),
    getWorkspace: () => run(() => api.get().getWorkspace()),
    listTemplates: (page = 1) => run(() => api.get().listTemplates(page)),
    createTemplate: (input) => run(() => api.get().createTemplate(input)),
    sim: {
      connect: (input) => run(() => simApi.get().connect(input)),
      receive: (input) => run(() => simApi.get().receive(input)),
      react: (input) => run(() => simApi.get().react(input)),
      disconnect: (phone) => run(() => simApi.get().disconnect(phone)),
      suspend: (phone) => run(() => simApi.get().suspend(phone)),
      resume: (phone) => run(() => simApi.get().resume(phone)),
      setUnreachable: (phone, unreachable) => run(() => simApi.get().setUnreachable(phone, unreachable)),
      scan: (input) => run(() => engine.connect.scan(input)),
    },
    webhooks: localWebhooksClient(() => engine.webhooks(workspaceId())),
    listen: createLocalListenClient(() => engine.listen(workspaceId())),
    close,
  };
}

/** Built on first use, then kept. */
class LazyApi<T> {
  private value: T | undefined;
  constructor(private readonly build: () => T) {}
  get(): T {
    this.value ??= this.build();
    return this.value;
  }
}
