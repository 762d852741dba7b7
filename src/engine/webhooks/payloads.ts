import type { AccountRow } from '../../store/account-store.js';
import type { ChatRow } from '../../store/chat-store.js';
import type { MessageEventView } from '../../store/message-event-view.js';
import { buildAccountEvent, buildChatEvent, buildMessageEvent, type AccountInput, type ChatInput, type WebhookPayload } from '../../webhooks/payload.js';
import { ACCOUNT_EVENT_TYPES, CHAT_EVENT_TYPES, MESSAGE_EVENT_TYPES, type AccountEventType, type ChatEventType, type MessageEventType } from '../../wire/webhook-events.js';
import type { EngineContext } from '../context.js';
import type { DomainEvent } from '../events.js';
import { presign } from '../files.js';

export type WorkspaceEvent = Exclude<DomainEvent, { partnerId: number }>;

const is = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

/** Link to a chat in the service: its Public API record under the configured public URL. */
const chatUrl = (ctx: EngineContext, chatId: number): string => `${ctx.config.publicUrl.replace(/\/+$/, '')}/api/chats/${chatId}`;

const chatInput = (ctx: EngineContext, chat: ChatRow): ChatInput => ({
  id: chat.id,
  name: chat.name,
  url: chatUrl(ctx, chat.id),
  isGroup: chat.is_group === 1,
  contactPhone: chat.contact_phone,
  responsibleName: chat.responsible_name,
  responsibleEmail: chat.responsible_email,
});

const accountInput = (account: AccountRow): AccountInput => ({ fullName: account.full_name, email: account.email, phone: account.phone });

/**
 * The docs/api-behaviour.md bodies of workspace events, in their order, read from the rows inside the
 * transaction that emitted them (one statement for all of them on PostgreSQL); null where a row has gone
 * (nothing to tell). Download links are signed here and again before each attempt.
 */
export async function buildEventPayloads(ctx: EngineContext, events: readonly WorkspaceEvent[]): Promise<Array<WebhookPayload | null>> {
  const { stores } = ctx;
  const messageIds = events.flatMap((event) => ('messageId' in event ? [event.messageId] : []));
  const chatIds = events.flatMap((event) => ('chatId' in event ? [{ id: event.chatId, workspaceId: event.workspaceId }] : []));
  const { messages: messageViews, chats: chatViews } = await stores.messageEventViews.of(messageIds, chatIds);
  const payloads: Array<WebhookPayload | null> = [];
  for (const event of events) {
    if ('messageId' in event && is<MessageEventType>(MESSAGE_EVENT_TYPES, event.type)) {
      const view = messageViews.get(event.messageId);
      payloads.push(view === undefined ? null : await messageEventBody(ctx, event.type, view));
    } else if ('chatId' in event && is<ChatEventType>(CHAT_EVENT_TYPES, event.type)) {
      const view = chatViews.get(event.chatId);
      payloads.push(view === undefined ? null : buildChatEvent(event.type, { chat: chatInput(ctx, view.chat), account: accountInput(view.account) }));
    } else if ('accountId' in event && is<AccountEventType>(ACCOUNT_EVENT_TYPES, event.type)) {
      const account = await stores.accounts.byId(event.accountId);
      payloads.push(account === undefined ? null : buildAccountEvent(event.type, { account: accountInput(account), occurredAt: ctx.clock.now() }));
    } else {
      payloads.push(null);
    }
  }
  return payloads;
}

async function messageEventBody(ctx: EngineContext, type: MessageEventType, view: MessageEventView): Promise<WebhookPayload> {
  const { message, chat, account, file } = view;
  const us = { fullName: account.full_name, phone: account.phone };
  const contact = { fullName: chat.name, phone: chat.contact_phone };
  const attachments =
    file === undefined
      ? []
      : [{
          temporaryDownloadUrl: (await presign(ctx, file.uid, ctx.config.publicUrl)).temporary_download_url,
          filename: file.filename,
          size: file.size,
          mimetype: file.mimetype,
        }];
  return buildMessageEvent(type, {
    chat: chatInput(ctx, chat),
    account: accountInput(account),
    message: {
      uid: message.uid,
      text: message.text,
      direction: message.direction,
      origin: ctx.network.name,
      createdAt: message.created_at,
      replyToUid: message.reply_to_uid,
      sender: message.direction === 'sent' ? us : contact,
      recipient: message.direction === 'sent' ? contact : us,
      attachments,
      reactions: view.reactions ?? {},
    },
  });
}

/** Body of a partner event (docs/api-behaviour.md names the events, not their bodies): type, time and the event's data. */
export const partnerEventPayload = (ctx: EngineContext, type: string, data: Record<string, unknown>) => ({
  event_type: type,
  occurred_at: new Date(ctx.clock.now()).toISOString(),
  data,
});

const SAMPLE_CHAT: ChatInput = {
  id: 0, name: 'Test contact', url: 'about:blank', isGroup: false, contactPhone: '+15550000000',
  responsibleName: null, responsibleEmail: null,
};
const SAMPLE_ACCOUNT: AccountInput = { fullName: 'Test account', email: 'test@example.com', phone: '+15550000001' };

/** A sample body of `eventType` for `POST /webhooks/{id}/test`, in the real shape and marked `"test": true`. */
export function samplePayload(ctx: EngineContext, eventType: string): Record<string, unknown> {
  const now = ctx.clock.now();
  const chat = { ...SAMPLE_CHAT, url: chatUrl(ctx, 0) };
  let body: Record<string, unknown>;
  if (is<MessageEventType>(MESSAGE_EVENT_TYPES, eventType)) {
    const received = eventType === 'message:received:new';
    const us = { fullName: SAMPLE_ACCOUNT.fullName, phone: SAMPLE_ACCOUNT.phone };
    const contact = { fullName: chat.name, phone: chat.contactPhone };
    body = { ...buildMessageEvent(eventType, {
      chat, account: SAMPLE_ACCOUNT,
      message: {
        uid: `test-${now}`, text: 'This is a test event from svc', direction: received ? 'received' : 'sent',
        origin: ctx.network.name, createdAt: now, replyToUid: null,
        // A reaction, so a receiver built against samples meets the optional `reactions` key too.
        sender: received ? contact : us, recipient: received ? us : contact, attachments: [], reactions: { '👍': 1 },
      },
    }) };
  } else if (is<ChatEventType>(CHAT_EVENT_TYPES, eventType)) {
    body = { ...buildChatEvent(eventType, { chat, account: SAMPLE_ACCOUNT }) };
  } else if (is<AccountEventType>(ACCOUNT_EVENT_TYPES, eventType)) {
    body = { ...buildAccountEvent(eventType, { account: SAMPLE_ACCOUNT, occurredAt: now }) };
  } else {
    body = partnerEventPayload(ctx, eventType, {});
  }
  return { ...body, test: true };
}

const DOWNLOAD_PATH = /\/files\/([^/?#]+)$/;

/**
 * Signs the attachments' download links again, right before an attempt: docs/api-behaviour.md says they are
 * valid 15 minutes from delivery, and a retry may come long after the event. Bodies without attachments
 * (almost all) are returned untouched, without parsing.
 */
export async function refreshDownloadUrls(ctx: EngineContext, body: string): Promise<string> {
  if (!body.includes('"temporary_download_url"')) return body;
  try {
    const parsed = JSON.parse(body) as { message?: { attachments?: Array<{ temporary_download_url?: unknown }> } };
    for (const attachment of parsed.message?.attachments ?? []) {
      if (typeof attachment.temporary_download_url !== 'string') continue;
      const url = new URL(attachment.temporary_download_url);
      const match = DOWNLOAD_PATH.exec(url.pathname);
      if (match?.[1] === undefined) continue;
      const base = `${url.origin}${url.pathname.slice(0, match.index)}`;
      attachment.temporary_download_url = (await presign(ctx, decodeURIComponent(match[1]), base)).temporary_download_url;
    }
    return JSON.stringify(parsed);
  } catch {
    return body;
  }
}
