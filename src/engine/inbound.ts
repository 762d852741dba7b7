import { memoKeys } from './memo-keys.js';
import type { IncomingMessage, NetworkEvents } from '../network/driver.js';
import { accountOfWorkspace, changeAccountStatus } from './accounts.js';
import { timeOrderedUid } from './time-ordered-uid.js';
import { findOrCreateChat, newChatName } from './chats.js';
import { assertAdmitted, inWriteTransaction, readOnce, type EngineContext } from './context.js';
import { invalid, notFound } from '../wire/errors.js';
import { fileOfWorkspace } from './files.js';
import { isTooLong } from './messages.js';
import { prepareIncoming } from './batch-preludes.js';
import { preludeShare, type BatchAdmission } from '../store/sql-database.js';

/** What the engine does when the network reports something: the sink every driver is started with. */
export function createInbound(ctx: EngineContext): NetworkEvents {
  return {
    messageReceived: (message) => receiveMessage(ctx, message),
    async reactionAdded({ messageUid, emoji }) {
      if (typeof emoji !== 'string' || emoji.length === 0 || emoji.length > 16) throw invalid('emoji must be 1 to 16 characters');
      return inWriteTransaction(ctx, async (tx) => {
        const message = await tx.stores.messages.byUid(messageUid);
        if (message === undefined) throw notFound(`message ${messageUid}`);
        await tx.stores.messages.addReaction(message.id, emoji);
        return (await tx.stores.messages.reactionsOf(message.id)) ?? {};
      });
    },
    async accountChanged({ accountPhone, status }) {
      const account = await ctx.stores.accounts.byPhone(accountPhone);
      if (account === undefined) throw notFound(`messenger account ${accountPhone}`);
      await changeAccountStatus(ctx, account, status);
    },
  };
}

/** Stores an incoming message (creating the chat on first contact) and emits its events. */
async function receiveMessage(ctx: EngineContext, message: IncomingMessage): Promise<{ messageUid: string; chatId: number }> {
  const text = message.text ?? null;
  const refusal =
    text !== null && isTooLong(text, ctx.config.maxTextLength)
      ? invalid(`text may be at most ${ctx.config.maxTextLength} characters`)
      : (text === null || text === '') && message.attachmentFileUid === undefined
        ? invalid('an incoming message needs text or a file')
        : undefined;
  const admission = message.writeAdmission as BatchAdmission | undefined;
  if (refusal !== undefined) {
    // An account of another workspace is reported before what is wrong with the message.
    await assertAdmitted(ctx.sql, admission);
    if (message.workspaceId !== undefined) await accountOfWorkspace(ctx, message.workspaceId, message.accountPhone);
    throw refusal;
  }
  return inWriteTransaction(admission === undefined ? ctx : { ...ctx, admission }, async (tx) => {
    const account = await readOnce(tx, memoKeys.accountByPhone(message.accountPhone), () => tx.stores.accounts.byPhone(message.accountPhone));
    if (message.workspaceId !== undefined && account?.workspace_id !== message.workspaceId) {
      throw notFound(`messenger account ${message.accountPhone}`, 'list the connected accounts with `svc accounts list`');
    }
    if (account === undefined) throw notFound(`messenger account ${message.accountPhone}`);
    const workspaceId = account.workspace_id;
    const chat = await findOrCreateChat(tx, account, message.contactPhone, 'contact', message.contactName);
    const file = message.attachmentFileUid === undefined ? undefined : await fileOfWorkspace(tx, workspaceId, message.attachmentFileUid);
    let replyTo: { id: number; uid: string } | null = null;
    if (message.replyToUid !== undefined && message.replyToUid !== '') {
      const original = await tx.stores.messages.byUid(message.replyToUid);
      if (original === undefined || original.chat_id !== chat.id) throw notFound(`message ${message.replyToUid} in this chat`);
      replyTo = original;
    }
    const now = tx.clock.now();
    const uid = timeOrderedUid(now);
    const received = { uid, workspaceId, chatId: chat.id, accountId: account.id, text, fileId: file?.id ?? null, replyToId: replyTo?.id ?? null, now };
    const messageId = await tx.stores.messages.insertReceived(received);
    // Its events' bodies are built from what was just written and read, not read back (PostgreSQL).
    tx.stores.messageEventViews.knowReceived({ message: { ...received, id: messageId }, chat, account, file, replyToUid: replyTo?.uid ?? null });
    await tx.events.emit(tx, { type: 'message:received:new', workspaceId, messageId });
    await tx.events.emit(tx, { type: 'message:new', workspaceId, messageId });
    return { messageUid: uid, chatId: chat.id };
    // Group commit, as for sends: the messages of one turn share a transaction. READ COMMITTED is enough: a new
    // chat is made behind its workspace's row lock, and the rest only inserts.
  }, { grouped: true, isolation: 'read committed', prelude: preludeShare(prepareIncoming, { accountPhone: message.accountPhone, contactPhone: message.contactPhone, chatName: chatNameAhead(message), now: ctx.clock.now() }) });
}

/** The name a chat made ahead for the message takes (`newChatName`); null, none made, where the write will refuse it. */
function chatNameAhead(message: IncomingMessage): string | null {
  try {
    return newChatName(message.contactPhone, message.contactName);
  } catch {
    return null;
  }
}
