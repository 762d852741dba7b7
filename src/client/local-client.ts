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
    const workspaceId = resolveWorkspace(engine, options);
    engine.workers.start();
    return createLocalClient(engine, workspaceId, `local engine (${options.dataDir})`, () => engine.close());
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
export function createLocalClient(engine: Engine, workspaceId: number, target: string, close: () => Promise<void>): SvcClient {
  const api = engine.workspace(workspaceId);
  const sim = engine.sim(workspaceId);
  const run = async <T>(fn: () => T): Promise<T> => fn();
  return {
    target,
    sendToPhone: (input) => run(() => api.sendToPhone(input)),
    sendToChatName: (input) => run(() => api.sendToChatName(input)),
    sendToChat: (chatId, input) => run(() => api.sendToChat(chatId, input)),
    getMessage: (uid) => run(() => api.getMessage(uid)),
    listChats: (page = 1) => run(() => api.listChats(page)),
    getChat: (chatId) => run(() => api.getChat(chatId)),
    updateChat: (chatId, input) => run(() => api.updateChat(chatId, input)),
    listChatMessages: (chatId, page = 1) => run(() => api.listChatMessages(chatId, page)),
    uploadFile: (input) => run(() => api.uploadFile(input)),
    listFiles: (page = 1) => run(() => api.listFiles(page)),
    getFile: (uid) => run(() => api.getFile(uid)),
    deleteFile: (uid) => run(() => api.deleteFile(uid)),
    listAccounts: () => run(() => api.listAccounts()),
    getWorkspace: () => run(() => api.getWorkspace()),
    listTemplates: (page = 1) => run(() => api.listTemplates(page)),
    createTemplate: (input) => run(() => api.createTemplate(input)),
    sim: {
      connect: (input) => run(() => sim.connect(input)),
      receive: (input) => run(() => sim.receive(input)),
      react: (input) => run(() => sim.react(input)),
      disconnect: (phone) => run(() => sim.disconnect(phone)),
      suspend: (phone) => run(() => sim.suspend(phone)),
      resume: (phone) => run(() => sim.resume(phone)),
      setUnreachable: (phone, unreachable) => run(() => sim.setUnreachable(phone, unreachable)),
      scan: (input) => run(() => engine.connect.scan(input)),
    },
    webhooks: localWebhooksClient(() => engine.webhooks(workspaceId)),
    listen: createLocalListenClient(engine, workspaceId),
    close,
  };
}
