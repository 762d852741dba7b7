import { describe, expect, it } from 'vitest';
import {
  buildAccountEvent,
  buildChatEvent,
  buildMessageEvent,
  formatPayloadTimestamp,
  isEventType,
  type ChatInput,
  type MessageInput,
} from '../../src/webhooks/payload.js';
import { ACCOUNT_EVENT_TYPES, EVENT_TYPES } from '../../src/wire/webhook-events.js';

const chat: ChatInput = {
  id: 42,
  name: 'Alice',
  url: 'https://svc.example.com/chats/42',
  isGroup: false,
  contactPhone: '+4915112345678',
  responsibleName: null,
  responsibleEmail: null,
};
const account = { fullName: 'Support', email: 'support@example.com', phone: '+15550001000' };
const message: MessageInput = {
  uid: 'msg-uid-1',
  text: 'Hello\nthere',
  direction: 'received',
  origin: 'sim',
  createdAt: Date.UTC(2026, 0, 15, 9, 5, 7),
  replyToUid: 'msg-uid-0',
  sender: { fullName: 'Alice', phone: '+4915112345678' },
  recipient: { fullName: 'Support', phone: '+15550001000' },
  attachments: [{ temporaryDownloadUrl: 'https://svc.example.com/files/f1?expires=1&signature=s', filename: 'a.pdf', size: 1234, mimetype: 'application/pdf' }],
  reactions: { '👍': 2, '❤️': '1' },
};

describe('payload', () => {
  it('EVENT_TYPES: the eight docs/api-behaviour.md events and the four account events', () => {
    expect(EVENT_TYPES).toEqual([
      'message:new', 'message:received:new', 'message:sent:new',
      'chat:created', 'chat:received:created', 'chat:sent:created', 'chat:assigned', 'chat:unassigned',
      'messenger:account:connected', 'messenger:account:disconnected', 'messenger:account:suspended', 'messenger:account:resumed',
    ]);
    expect(isEventType('chat:assigned')).toBe(true);
    expect(isEventType('message:deleted')).toBe(false);
    expect(isEventType(42)).toBe(false);
  });

  it('formatPayloadTimestamp: YYYY-MM-DD HH:MM:SS +ZZZZ, UTC by default', () => {
    expect(formatPayloadTimestamp(Date.UTC(2026, 0, 5, 3, 4, 5))).toBe('2026-01-05 03:04:05 +0000');
    expect(formatPayloadTimestamp(Date.UTC(2026, 0, 5, 23, 30, 0), 120)).toBe('2026-01-06 01:30:00 +0200');
    expect(formatPayloadTimestamp(Date.UTC(2026, 0, 5, 3, 0, 0), -330)).toBe('2026-01-04 21:30:00 -0530');
    expect(formatPayloadTimestamp(Date.UTC(2026, 0, 5, 3, 4, 5, 999))).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/);
  });

  it('buildMessageEvent: the docs/api-behaviour.md shape with attachments, reactions as strings and reply_to_uid', () => {
    const payload = buildMessageEvent('message:received:new', { chat, account, message });
    expect(payload).toEqual({
      event_type: 'message:received:new',
      chat: {
        full_name: 'Alice', chat_url: 'https://svc.example.com/chats/42', chat_id: 42, is_group: false,
        phone: '+4915112345678',
      },
      messenger_account: { full_name: 'Support', email: 'support@example.com', phone: '+15550001000' },
      message: {
        text: 'Hello\nthere', direction: 'received', origin: 'sim', timestamp: '2026-01-15 09:05:07 +0000',
        message_uid: 'msg-uid-1', reply_to_uid: 'msg-uid-0',
        sender: { full_name: 'Alice', phone: '+4915112345678' },
        recipient: { full_name: 'Support', phone: '+15550001000' },
        attachments: [{ temporary_download_url: 'https://svc.example.com/files/f1?expires=1&signature=s', filename: 'a.pdf', size: 1234, mimetype: 'application/pdf' }],
        reactions: { '👍': '2', '❤️': '1' },
      },
    });
  });

  it('buildMessageEvent: no reactions or reply_to_uid key without them; empty text becomes ""', () => {
    const payload = buildMessageEvent('message:sent:new', {
      chat, account, message: { ...message, text: null, replyToUid: '', reactions: {}, attachments: [], direction: 'sent' },
    });
    expect(payload.message).not.toHaveProperty('reactions');
    expect(payload.message).not.toHaveProperty('reply_to_uid');
    expect(payload.chat).not.toHaveProperty('responsible_name');
    expect(payload.chat).not.toHaveProperty('responsible_email');
    expect(payload.message).toMatchObject({ text: '', attachments: [], direction: 'sent' });
    expect(JSON.parse(JSON.stringify(payload))).toEqual(payload);
  });

  it('buildChatEvent: chat and account, with the assignee', () => {
    const payload = buildChatEvent('chat:assigned', { chat: { ...chat, responsibleName: 'Bob', responsibleEmail: 'bob@example.com' }, account });
    expect(payload).toMatchObject({ event_type: 'chat:assigned', chat: { chat_id: 42, responsible_name: 'Bob', responsible_email: 'bob@example.com' } });
    expect(payload).not.toHaveProperty('message');
  });

  it('buildAccountEvent: status follows the event', () => {
    const statuses = ACCOUNT_EVENT_TYPES.map((type) => buildAccountEvent(type, { account, occurredAt: 0 }).messenger_account.status);
    expect(statuses).toEqual(['connected', 'disconnected', 'suspended', 'connected']);
    expect(buildAccountEvent('messenger:account:suspended', { account, occurredAt: 0 })).toEqual({
      event_type: 'messenger:account:suspended',
      messenger_account: { ...{ full_name: 'Support', email: 'support@example.com', phone: '+15550001000' }, status: 'suspended' },
      occurred_at: '1970-01-01 00:00:00 +0000',
    });
  });
});
