/**
 * An in-memory Engine for HTTP tests: enough behaviour to check what the HTTP layer does (auth, shapes,
 * error mapping, pass-through), none of the real rules. `failNext` makes the next workspace call throw.
 */
import type {
  AttachmentTemplateDto,
  ChatDto,
  FileDto,
  MessageDto,
  MessengerAccountDto,
  Page,
  SendResult,
  WorkspaceDto,
} from '../../src/wire/types.js';
import { FakeClock } from '../../src/wire/clock.js';
import type { Engine, SimApi, WorkspaceApi } from '../../src/engine/engine-api.js';
import { SvcError, notFound } from '../../src/wire/errors.js';
import { sampleChat, sampleMessage } from './fake-client.js';

export const TOKEN = 'tok_valid_0123456789';
export const OTHER_TOKEN = 'tok_other_0123456789';
export const CREATED_AT = '2026-01-15T12:00:00.000Z';

interface StoredFile extends FileDto {
  content: Buffer;
}

/** Records what reached the engine, so tests can check pass-through. */
export interface FakeEngineLog {
  linkBases: Array<string | undefined>;
  inputs: unknown[];
}

export interface FakeEngine extends Engine {
  log: FakeEngineLog;
  files: Map<string, StoredFile>;
  /** The next workspace or sim call throws this. */
  failNext(error: unknown): void;
  /** Workers started/stopped, engine closed. */
  lifecycle: string[];
}

const chat = (id: number): ChatDto => sampleChat({ id, name: `Chat ${id}`, created_at: CREATED_AT });

const message = (uid: string): MessageDto => sampleMessage({ uid, chat_id: 1, status: 'Pending', created_at: CREATED_AT, sent_at: null });

const workspaceDto: WorkspaceDto = {
  id: 1,
  name: 'Local',
  plan: 'standard',
  seats_purchased: 1,
  seats_used: 1,
  send_interval_ms: null,
  messaging_quota: {
    total: 100,
    used: 1,
    remaining: 99,
    period: 'month',
    period_start: CREATED_AT,
    period_end: CREATED_AT,
  },
  storage: { limit_bytes: 1073741824, used_bytes: 0 },
  created_at: CREATED_AT,
};

const account: MessengerAccountDto = {
  id: 1,
  phone: '+15550001',
  full_name: 'Sim',
  email: 'sim@example.com',
  status: 'connected',
  connected_at: CREATED_AT,
  is_default_sender: true,
};

const pageOf = <T>(items: T[], page: number): Page<T> => ({ items: page === 1 ? items : [], page, has_more_pages: false });

/** Builds a fake engine whose tokens are TOKEN (workspace 1) and OTHER_TOKEN (workspace 2). */
export function createFakeEngine(): FakeEngine {
  const log: FakeEngineLog = { linkBases: [], inputs: [] };
  const files = new Map<string, StoredFile>();
  const lifecycle: string[] = [];
  const templates: AttachmentTemplateDto[] = [];
  let pending: unknown;
  let counter = 0;
  const guard = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    if (pending !== undefined) {
      const error = pending;
      pending = undefined;
      throw error;
    }
    log.inputs.push(args.length === 1 ? args[0] : args);
    return fn(...args);
  };
  const sent = (): SendResult => ({ message_uid: `msg_${++counter}`, status: 'Pending', chat_id: 1, credits: 1 });
  const publicFile = ({ content: _content, ...dto }: StoredFile): FileDto => dto;

  const workspace = (workspaceId: number, options?: { linkBase?: string }): WorkspaceApi => {
    log.linkBases.push(options?.linkBase);
    const api: WorkspaceApi = {
      sendToPhone: async () => sent(),
      sendToChatName: async () => sent(),
      sendToChat: async () => sent(),
      getMessage: async (uid) => message(uid),
      listChats: async (page = 1) => pageOf([chat(1), chat(2)], page),
      getChat: async (id) => {
        if (id > 100) throw notFound(`Chat ${id}`);
        return chat(id);
      },
      updateChat: async (id, input) => ({ ...chat(id), ...(input.name === undefined ? {} : { name: input.name }) }),
      listChatMessages: async (_id, page = 1) => pageOf([message('msg_a')], page),
      uploadFile: async (input) => {
        const uid = `file_${++counter}`;
        const stored: StoredFile = {
          uid,
          filename: input.filename,
          mimetype: input.mimetype,
          size: input.content.byteLength,
          created_at: CREATED_AT,
          content: Buffer.from(input.content),
        };
        files.set(uid, stored);
        return publicFile(stored);
      },
      listFiles: async (page = 1) => pageOf([...files.values()].map(publicFile), page),
      getFile: async (uid) => {
        const file = files.get(uid);
        if (file === undefined) throw notFound(`File ${uid}`);
        return {
          ...publicFile(file),
          temporary_download_url: `${options?.linkBase}/files/${uid}?expires=9999999999&signature=sig`,
          expires_at: CREATED_AT,
        };
      },
      deleteFile: async (uid) => {
        if (!files.delete(uid)) throw notFound(`File ${uid}`);
        return { deleted: true, uid };
      },
      listAccounts: async () => ({ items: [account], page: 1, has_more_pages: false }),
      getWorkspace: async () => ({ ...workspaceDto, id: workspaceId }),
      listTemplates: async (page = 1) => pageOf(templates, page),
      createTemplate: async (input) => {
        const template = { id: templates.length + 1, name: input.name, file_uid: input.file_uid, created_at: CREATED_AT };
        templates.push(template);
        return template;
      },
    };
    return Object.fromEntries(Object.entries(api).map(([key, fn]) => [key, guard(fn as never)])) as unknown as WorkspaceApi;
  };

  const sim = (): SimApi => {
    const api: SimApi = {
      connect: async (input) => ({ phone: input.phone, status: 'connected' }),
      receive: async () => ({ message_uid: `msg_${++counter}`, chat_id: 1 }),
      react: async (input) => ({ message_uid: input.message_uid, reactions: { [input.emoji]: '1' } }),
      disconnect: async (phone) => ({ phone, status: 'disconnected' }),
      suspend: async (phone) => ({ phone, status: 'suspended' }),
      resume: async (phone) => ({ phone, status: 'connected' }),
      setUnreachable: async (phone, unreachable) => ({ phone, unreachable }),
    };
    return Object.fromEntries(Object.entries(api).map(([key, fn]) => [key, guard(fn as never)])) as unknown as SimApi;
  };

  return {
    clock: new FakeClock(),
    webhookUrlPolicy: 'strict',
    log,
    files,
    lifecycle,
    failNext: (error) => {
      pending = error;
    },
    authenticate: async (token) => (token === TOKEN ? 1 : token === OTHER_TOKEN ? 2 : null),
    ensureLocalWorkspace: async () => ({ workspace_id: 1, token: TOKEN }),
    workspace,
    // Webhook routes are tested against the real engine (test/webhooks); this fake does not serve them.
    webhooks: () => {
      throw new Error('webhooks are not faked');
    },
    // Listen sessions are tested against the real engine (test/listen).
    listen: () => {
      throw new Error('listen sessions are not faked');
    },
    sim,
    admin: {
      createWorkspace: async () => ({ workspace_id: 3, token: 'tok_new' }),
      updateWorkspace: async () => workspaceDto,
      createPartner: async (input) => ({ partner_id: 'ptn_fake00000', partner_secret: 'pts_fake', name: input.name }),
      instanceSettings: async () => ({ webhook_urls: 'local', webhook_retry_delays_ms: [5000, 30_000], webhook_retry_delays_default: true }),
      updateInstanceSettings: async () => {
        throw new Error('instance settings are not faked');
      },
    },
    // The partner area is tested against the real engine (test/partner); here it knows no partners.
    partners: { secretOf: async () => null, verifySecret: async () => false },
    partner: () => {
      throw new SvcError('unauthorized', 'no partners in the fake engine');
    },
    connect: {
      snapshot: async () => null,
      scan: async () => {
        throw notFound('QR link');
      },
    },
    download: async (uid, expires, signature) => {
      const file = files.get(uid);
      if (file === undefined || signature !== 'sig' || expires < 1000) throw notFound('File');
      return { filename: file.filename, mimetype: file.mimetype, content: file.content };
    },
    workers: {
      start: () => void lifecycle.push('start'),
      stop: async () => void lifecycle.push('stop'),
      runDue: async () => 0,
    },
    onWake: () => () => undefined,
    queueStats: async () => ({ webhooks: [], sends: { count: 0, oldestCreatedAt: null }, ownerMail: { count: 0 } }),
    usePublicUrl: () => undefined,
    checkDatabase: async () => undefined,
    close: async () => void lifecycle.push('close'),
  };
}

/** The Authorization header of TOKEN. */
export const auth = (token = TOKEN) => ({ authorization: `Bearer ${token}` });

export { SvcError };
