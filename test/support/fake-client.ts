import type { SvcClient } from '../../src/client/client.js';
import type { ClientConfig } from '../../src/client/create-client.js';
import type { ChatDto, FileDto, MessageDto, SendResult, WorkspaceDto } from '../../src/wire/types.js';

/** A call made on the fake client: method name and arguments. */
export interface Call {
  method: string;
  args: unknown[];
}

export const sampleMessage = (overrides: Partial<MessageDto> = {}): MessageDto => ({
  uid: 'msg_1',
  chat_id: 7,
  direction: 'sent',
  status: 'Sent',
  failure_reason: null,
  text: 'Hi',
  file_uid: null,
  attachment_template_id: null,
  messenger_account_phone: '+15550001',
  contact_phone: '+14155550123',
  credits: 1,
  reactions: null,
  created_at: '2026-01-15T12:00:00.000Z',
  sent_at: '2026-01-15T12:00:02.000Z',
  ...overrides,
});

export const sampleChat = (overrides: Partial<ChatDto> = {}): ChatDto => ({
  id: 7,
  name: 'Alice',
  phone: '+14155550123',
  is_group: false,
  messenger_account_phone: '+15550001',
  labels: [],
  created_at: '2026-01-15T12:00:00.000Z',
  ...overrides,
});

export const sampleFile = (overrides: Partial<FileDto> = {}): FileDto => ({
  uid: 'file_1',
  filename: 'photo.png',
  mimetype: 'image/png',
  size: 3,
  created_at: '2026-01-15T12:00:00.000Z',
  ...overrides,
});

export const sampleWorkspace = (): WorkspaceDto => ({
  id: 1,
  name: 'Local',
  plan: 'standard',
  seats_purchased: 1,
  seats_used: 1,
  send_interval_ms: null,
  messaging_quota: {
    total: 1000,
    used: 3,
    remaining: 997,
    period: 'month',
    period_start: '2026-01-01T00:00:00.000Z',
    period_end: '2026-02-01T00:00:00.000Z',
  },
  storage: { limit_bytes: 1073741824, used_bytes: 0 },
  created_at: '2026-01-01T00:00:00.000Z',
});

const accepted: SendResult = { message_uid: 'msg_1', status: 'Pending', chat_id: 7, credits: 1 };

/**
 * An in-memory SvcClient that records every call. `statuses` is what successive getMessage calls answer
 * (the last one repeats); override any method through `overrides`.
 */
export function fakeClient(
  options: { statuses?: MessageDto[]; overrides?: Partial<SvcClient> } = {},
): SvcClient & { calls: Call[]; closed: boolean } {
  const calls: Call[] = [];
  const statuses = options.statuses ?? [sampleMessage()];
  let polls = 0;
  const record =
    <T>(method: string, answer: (...args: never[]) => T) =>
    async (...args: unknown[]): Promise<T> => {
      calls.push({ method, args });
      return answer(...(args as never[]));
    };
  const client = {
    target: 'fake',
    calls,
    closed: false,
    sendToPhone: record('sendToPhone', () => ({ ...accepted })),
    sendToChatName: record('sendToChatName', () => ({ ...accepted })),
    sendToChat: record('sendToChat', () => ({ ...accepted })),
    getMessage: record('getMessage', () => statuses[Math.min(polls++, statuses.length - 1)]!),
    listChats: record('listChats', () => ({ items: [sampleChat()], page: 1, has_more_pages: false })),
    getChat: record('getChat', () => sampleChat()),
    updateChat: record('updateChat', () => sampleChat({ responsible_email: 'bob@example.com' })),
    listChatMessages: record('listChatMessages', () => ({ items: [sampleMessage()], page: 1, has_more_pages: false })),
    uploadFile: record('uploadFile', () => sampleFile()),
    listFiles: record('listFiles', () => ({ items: [sampleFile()], page: 1, has_more_pages: true })),
    getFile: record('getFile', () => sampleFile({ temporary_download_url: 'http://127.0.0.1/files/x' })),
    deleteFile: record('deleteFile', () => ({ deleted: true as const, uid: 'file_1' })),
    listAccounts: record('listAccounts', () => ({
      items: [{ id: 1, phone: '+15550001', full_name: 'Sim', email: 'sim@example.com', status: 'connected' as const, connected_at: null, is_default_sender: true }],
      page: 1,
      has_more_pages: false,
    })),
    getWorkspace: record('getWorkspace', () => sampleWorkspace()),
    listTemplates: record('listTemplates', () => ({ items: [], page: 1, has_more_pages: false })),
    createTemplate: record('createTemplate', () => ({ id: 3, name: 'menu', file_uid: 'file_1', created_at: '2026-01-15T12:00:00.000Z' })),
    sim: {
      connect: record('sim.connect', () => ({ phone: '+15550001', status: 'connected' as const })),
      receive: record('sim.receive', () => ({ message_uid: 'msg_in', chat_id: 7 })),
      react: record('sim.react', () => ({ message_uid: 'msg_1', reactions: { '👍': '1' } })),
      disconnect: record('sim.disconnect', () => ({ phone: '+15550001', status: 'disconnected' as const })),
      suspend: record('sim.suspend', () => ({ phone: '+15550001', status: 'suspended' as const })),
      resume: record('sim.resume', () => ({ phone: '+15550001', status: 'connected' as const })),
      setUnreachable: record('sim.setUnreachable', () => ({ phone: '+4915112345', unreachable: true })),
      scan: record('sim.scan', () => ({ phone: '+15550001', status: 'connected' as const, workspace_id: 1, user_id: 1 })),
    },
    async close() {
      client.closed = true;
    },
    ...options.overrides,
  };
  return client as SvcClient & { calls: Call[]; closed: boolean };
}

/** A client factory that remembers the configurations it was asked for. */
export function fakeFactory(client: SvcClient): { create: (config: ClientConfig) => Promise<SvcClient>; configs: ClientConfig[] } {
  const configs: ClientConfig[] = [];
  return {
    configs,
    create: async (config) => {
      configs.push(config);
      return client;
    },
  };
}
