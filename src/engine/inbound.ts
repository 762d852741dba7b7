import type { IncomingMessage, NetworkEvents } from '../network/driver.js';
import { changeAccountStatus } from './accounts.js';
import { timeOrderedUid } from './time-ordered-uid.js';
import { findOrCreateChat } from './chats.js';
import { inWriteTransaction, type EngineContext } from './context.js';
import { invalid, notFound } from './errors.js';
import { fileOfWorkspace } from './files.js';
import { isTooLong } from './messages.js';

/** What the engine does when the network reports something: the sink every driver is started with. */
export function createInbound(ctx: EngineContext): NetworkEvents {
  return {
    messageReceived: (message) => receiveMessage(ctx, message),
    reactionAdded({ messageUid, emoji }) {
      if (typeof emoji !== 'string' || emoji.length === 0 || emoji.length > 16) throw invalid('emoji must be 1 to 16 characters');
      return inWriteTransaction(ctx.db, () => {
        const message = ctx.stores.messages.byUid(messageUid);
        if (message === undefined) throw notFound(`message ${messageUid}`);
        ctx.stores.messages.addReaction(message.id, emoji);
        return ctx.stores.messages.reactionsOf(message.id) ?? {};
      });
    },
    accountChanged({ accountPhone, status }) {
      const account = ctx.stores.accounts.byPhone(accountPhone);
      if (account === undefined) throw notFound(`messenger account ${accountPhone}`);
      changeAccountStatus(ctx, account, status);
    },
  };
}

/** Stores an incoming message (creating the chat on first contact) and emits its events. */
function receiveMessage(ctx: EngineContext, message: IncomingMessage): { messageUid: string; chatId: number } {
  const text = message.text ?? null;
  if (text !== null && isTooLong(text, ctx.config.maxTextLength)) throw invalid(`text may be at most ${ctx.config.maxTextLength} characters`);
  if ((text === null || text === '') && message.attachmentFileUid === undefined) throw invalid('an incoming message needs text or a file');
  return inWriteTransaction(ctx.db, () => {
    const account = ctx.stores.accounts.byPhone(message.accountPhone);
    if (account === undefined) throw notFound(`messenger account ${message.accountPhone}`);
    const workspaceId = account.workspace_id;
    const chat = findOrCreateChat(ctx, account, message.contactPhone, 'contact', message.contactName);
    const fileId = message.attachmentFileUid === undefined ? null : fileOfWorkspace(ctx, workspaceId, message.attachmentFileUid).id;
    let replyToId: number | null = null;
    if (message.replyToUid !== undefined && message.replyToUid !== '') {
      const original = ctx.stores.messages.byUid(message.replyToUid);
      if (original === undefined || original.chat_id !== chat.id) throw notFound(`message ${message.replyToUid} in this chat`);
      replyToId = original.id;
    }
    const now = ctx.clock.now();
    const uid = timeOrderedUid(now);
    const messageId = ctx.stores.messages.insert({
      uid, workspaceId, chatId: chat.id, accountId: account.id, direction: 'received', status: 'Sent',
      text, fileId, templateId: null, replyToId, credits: 0, now,
    });
    ctx.stores.messages.markSent(messageId, null, now);
    ctx.events.emit({ type: 'message:received:new', workspaceId, messageId });
    ctx.events.emit({ type: 'message:new', workspaceId, messageId });
    return { messageUid: uid, chatId: chat.id };
  });
}
