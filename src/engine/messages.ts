import { memoKeys } from './memo-keys.js';
import type { MessageDto, Page, SendFields, SendResult, SendToChatInput, SendToChatNameInput, SendToPhoneInput } from '../wire/types.js';
import type { AccountRow } from '../store/account-store.js';
import type { ChatRow } from '../store/chat-store.js';
import type { MessageRow } from '../store/message-store.js';
import { accountOfWorkspace } from './accounts.js';
import { chatNameOf, chatOfWorkspace, findOrCreateChat, takeChatMadeAhead } from './chats.js';
import { isoTime } from '../wire/clock.js';
import { timeOrderedUid } from './time-ordered-uid.js';
import { inWriteTransaction, readOnce, type EngineContext } from './context.js';
import { creditsFor, quotaExceeded } from './credits.js';
import { checkQuotaAlerts } from './partner/alerts.js';
import { conflict, invalid, notFound } from '../wire/errors.js';
import { fileOfWorkspace } from './files.js';
import { assertId, assertUid } from './ids.js';
import { pageOf } from './paging.js';
import { loadWorkspace } from './workspaces.js';
import { prepareSends, type SendPreludeArg } from './batch-preludes.js';
import { preludeShare } from '../store/sql-database.js';
import type { ClaimAhead, DeferredWrites } from '../store/deferred-writes.js';
import type { ClaimedSend } from '../store/rows.js';
import { UNSPACED_RUN } from '../store/send-queue-store.js';
import { claimAheadOwner, sendSpacingFor } from './send-hand-off.js';

/** Loose shape of a phone as typed by people; separators are dropped, validity is the network's call. */
const PHONE_LIKE = /^\+?[0-9][0-9 ().-]{2,30}$/;

/**
 * True when `text` has more than `max` characters, counted as code points: what JSON Schema's `maxLength` in
 * the OpenAPI document counts, so an emoji is one character for both (UTF-16 `length` would count it twice).
 */
export const isTooLong = (text: string, max: number): boolean => text.length > max && [...text].length > max;

/** POST /messages: to a phone number, through the named account or the default sender. */
export function sendToPhone(ctx: EngineContext, workspaceId: number, input: SendToPhoneInput): Promise<SendResult> {
  const phone = normalisePhone(input.phone);
  const chatName = typeof input.chat_name === 'string' && input.chat_name.trim() !== '' ? chatNameOf(input.chat_name, 'chat_name') : undefined;
  const byDefaultSender = input.messenger_account_phone === undefined || input.messenger_account_phone === '';
  const prelude = byDefaultSender ? { workspaceId, contactPhone: phone, chatName, now: ctx.clock.now() } : { workspaceId, now: ctx.clock.now() };
  return acceptOutgoing(ctx, workspaceId, input, prelude, async (tx) => {
    const account =
      byDefaultSender
        ? await defaultSender(tx, workspaceId)
        : await accountOfWorkspace(tx, workspaceId, normalisePhone(input.messenger_account_phone));
    return { account, chat: await findOrCreateChat(tx, account, phone, 'workspace', chatName) };
  });
}

/** POST /messages/to_chat_name (deprecated): to the chat with exactly this name. */
export function sendToChatName(ctx: EngineContext, workspaceId: number, input: SendToChatNameInput): Promise<SendResult> {
  if (typeof input.chat_name !== 'string' || input.chat_name.length === 0) throw invalid('chat_name is required');
  const chatName = chatNameOf(input.chat_name, 'chat_name');
  return acceptOutgoing(ctx, workspaceId, input, { workspaceId, now: ctx.clock.now() }, async (tx) => {
    const chat = await tx.stores.chats.byName(workspaceId, chatName);
    if (chat === undefined) throw notFound(`chat "${chatName}"`, 'check the exact name with `svc chats list`');
    return { account: await accountOf(tx, chat), chat };
  });
}

/** POST /chats/{id}/messages. */
export function sendToChat(ctx: EngineContext, workspaceId: number, chatId: number, input: SendToChatInput): Promise<SendResult> {
  return acceptOutgoing(ctx, workspaceId, input, { workspaceId, now: ctx.clock.now() }, async (tx) => {
    const chat = await chatOfWorkspace(tx, workspaceId, chatId);
    return { account: await accountOf(tx, chat), chat };
  });
}

/**
 * Accepts an outgoing message in one write transaction: resolve account and chat, debit the credits,
 * store the message as Pending and queue its send job. If the quota is exhausted nothing is written.
 */
async function acceptOutgoing(
  ctx: EngineContext,
  workspaceId: number,
  fields: SendFields & { label?: string },
  prelude: SendPreludeArg,
  resolve: (tx: EngineContext) => Promise<{ account: AccountRow; chat: ChatRow }>,
): Promise<SendResult> {
  const text = fields.text === undefined || fields.text === null ? null : fields.text;
  if (text !== null && isTooLong(text, ctx.config.maxTextLength)) throw invalid(`text may be at most ${ctx.config.maxTextLength} characters`);
  if (fields.file_uid !== undefined && fields.attachment_template_id !== undefined) {
    throw invalid('give file_uid or attachment_template_id, not both');
  }
  if (fields.attachment_template_id !== undefined) assertId('attachment_template_id', fields.attachment_template_id);
  const hasAttachment = fields.file_uid !== undefined || fields.attachment_template_id !== undefined;
  if ((text === null || text.length === 0) && !hasAttachment) {
    throw invalid('a message needs text, file_uid or attachment_template_id');
  }
  const label = fields.label?.trim();
  if (label !== undefined && label.length > 100) throw invalid('label may be at most 100 characters');
  // Group commit: on SQLite the sends of one event-loop turn share a COMMIT. On PostgreSQL the transaction
  // runs at READ COMMITTED behind the workspace's row lock, taken before the first write: the sends of one
  // workspace on any replica write one after the other. Account and chat are read before it (a new chat takes
  // the lock itself), so the lock is held for the writes alone. (Locking only at the debit, last, measured
  // faster in-process but slower over HTTP on a busy machine, where 31 waiters had done their inserts and
  // queued on the row; serializable isolation would fail all but one and run them again.)
  let deferred: DeferredWrites | undefined;
  const handOff = ctx.sendHandOff;
  let claimed: ClaimedSend | undefined;
  const result = await inWriteTransaction<SendResult>(ctx, async (tx) => {
    deferred = tx.sql.deferred;
    claimed = undefined;
    const now = tx.clock.now();
    const { account, chat } = await resolve(tx);
    // A chat made ahead by the batch's prelude and reached by id or name is this send's new chat all the same.
    await takeChatMadeAhead(tx, chat, account);
    const workspace = await loadWorkspace(tx, workspaceId, { lock: true });
    const template =
      fields.attachment_template_id === undefined ? undefined : await tx.stores.files.templateById(workspaceId, fields.attachment_template_id);
    if (fields.attachment_template_id !== undefined && template === undefined) {
      throw notFound(`attachment template ${fields.attachment_template_id}`, 'list templates with `svc templates list`');
    }
    const fileId = fields.file_uid !== undefined ? (await fileOfWorkspace(tx, workspaceId, fields.file_uid)).id : (template?.file_id ?? null);
    const replyToId = await resolveReplyTo(tx, workspaceId, account, fields.reply_to);
    const credits = creditsFor(text, fileId !== null);
    const uid = timeOrderedUid(now);
    // Exact behind the row lock (SQLite: the write lock): the row as locked, plus what this transaction has
    // accepted and not written yet. The debit, message, send job and ledger row are written at the end of the
    // transaction with the rest of the group commit, in one statement on PostgreSQL (`flushAcceptedSends`).
    const used = workspace.quota_used + (tx.sql.deferred?.creditsOf(workspaceId) ?? 0);
    if (used + credits > workspace.quota_total) throw quotaExceeded(workspace, used, credits);
    // Where this process's dispatcher takes hand-offs, the flush may claim the send as it writes it (`SendHandOff`).
    const owner = claimAheadOwner(handOff, account, now);
    const claimAhead: ClaimAhead | undefined = owner === undefined ? undefined : {
      owner, leaseUntil: now + tx.config.sendLeaseMs, spacingMs: sendSpacingFor(tx, workspace.send_interval_ms),
      run: workspace.send_interval_ms === 0 ? UNSPACED_RUN : 1, onClaimed: (claim) => (claimed = claim),
    };
    tx.stores.messages.acceptSend({
      uid, workspaceId, chatId: chat.id, accountId: account.id, text, fileId, templateId: template?.id ?? null, replyToId, credits, now, claimAhead,
    });
    if (label !== undefined && label.length > 0) await tx.stores.chats.addLabel(workspaceId, chat.id, label);
    // Only partner workspaces have quota alerts; the row in hand says so without another read.
    if (workspace.partner_id !== null) await checkQuotaAlerts(tx, workspaceId, now);
    return { message_uid: uid, status: 'Pending', chat_id: chat.id, credits };
    // The batch's prelude locks every workspace of the batch and reads their senders and chats in a statement each.
  }, { grouped: true, isolation: 'read committed', order: workspaceId, prelude: preludeShare(prepareSends, prelude) });
  // The dispatcher would otherwise find the job only at its next poll (up to 100 ms later); unless the message
  // queued behind another of its account's, which the dispatchers already know about (`sendsNeedWake`).
  if (deferred?.sendsNeedWake !== false) ctx.wake('send');
  if (claimed !== undefined) handOff?.give?.(claimed);
  return result;
}

/** reply_to must name a message of the same workspace and account; null or "" is ignored (docs/api-behaviour.md). */
async function resolveReplyTo(ctx: EngineContext, workspaceId: number, account: AccountRow, replyTo: string | null | undefined): Promise<number | null> {
  if (replyTo === undefined || replyTo === null || replyTo === '') return null;
  const original = await ctx.stores.messages.byUid(replyTo);
  if (original === undefined || original.workspace_id !== workspaceId) throw notFound(`message ${replyTo} to reply to`);
  if (original.messenger_account_id !== account.id) {
    throw invalid(`reply_to ${replyTo} was sent through another messenger account`, 'reply from the account the message belongs to');
  }
  return original.id;
}

async function defaultSender(ctx: EngineContext, workspaceId: number): Promise<AccountRow> {
  const account = await readOnce(ctx, memoKeys.defaultSender(workspaceId), () => ctx.stores.accounts.defaultSender(workspaceId));
  if (account === undefined) {
    const suspended = (await ctx.stores.accounts.list(workspaceId)).filter((a) => a.status === 'suspended').map((a) => a.phone);
    if (suspended.length > 0) {
      throw conflict(
        `This workspace's messenger ${suspended.length === 1 ? `account ${suspended[0]} is` : `accounts ${suspended.join(', ')} are`} suspended`,
        'send again once an account resumes, or connect another one',
      );
    }
    throw conflict('This workspace has no connected messenger account', 'connect one (`svc sim connect --phone +15550001234` on the sim network)');
  }
  return account;
}

const accountOf = async (ctx: EngineContext, chat: ChatRow): Promise<AccountRow> => (await ctx.stores.accounts.byId(chat.messenger_account_id)) as AccountRow;

// A newline or NUL kept in a phone would make a second chat with a contact who looks the same on screen.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

function normalisePhone(phone: unknown): string {
  if (typeof phone === 'string' && CONTROL_CHARACTER.test(phone)) {
    throw invalid('phone must not contain control characters (a newline, a tab...)', 'send the number alone, e.g. +14155550123');
  }
  if (typeof phone !== 'string' || !PHONE_LIKE.test(phone.trim())) {
    throw invalid(`phone must be a number in international format, e.g. +14155550123`);
  }
  return phone.replace(/[ ().-]/g, '');
}

/** A message of this workspace by uid, or not_found (another workspace's message is not found either). */
export async function messageOfWorkspace(ctx: EngineContext, workspaceId: number, uid: string): Promise<MessageRow> {
  assertUid('message uid', uid);
  const row = await ctx.stores.messages.byUid(uid);
  if (row === undefined || row.workspace_id !== workspaceId) throw notFound(`message ${uid}`);
  return row;
}

export const getMessage = async (ctx: EngineContext, workspaceId: number, uid: string): Promise<MessageDto> =>
  messageDto(ctx, await messageOfWorkspace(ctx, workspaceId, uid));

export async function listChatMessages(ctx: EngineContext, workspaceId: number, chatId: number, page: number): Promise<Page<MessageDto>> {
  const chat = await chatOfWorkspace(ctx, workspaceId, chatId);
  return pageOf(page, (limit, offset) => ctx.stores.messages.pageOfChat(chat.id, limit, offset), (row) => messageDto(ctx, row));
}

export const messageDto = async (ctx: EngineContext, row: MessageRow): Promise<MessageDto> => ({
  uid: row.uid,
  chat_id: row.chat_id,
  direction: row.direction,
  status: row.status,
  failure_reason: row.failure_reason,
  text: row.text,
  file_uid: row.file_uid,
  attachment_template_id: row.template_id,
  ...(row.reply_to_uid === null ? {} : { reply_to_uid: row.reply_to_uid }),
  messenger_account_phone: row.account_phone,
  contact_phone: row.contact_phone,
  credits: row.credits,
  reactions: await ctx.stores.messages.reactionsOf(row.id),
  created_at: isoTime(row.created_at),
  sent_at: row.sent_at === null ? null : isoTime(row.sent_at),
});
