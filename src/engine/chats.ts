import { memoKeys } from './memo-keys.js';
import type { ChatDto, ChatUpdateInput, Page } from '../wire/types.js';
import type { AccountRow } from '../store/account-store.js';
import type { ChatRow } from '../store/chat-store.js';
import { isoTime } from '../wire/clock.js';
import { inWriteTransaction, readOnce, type EngineContext } from './context.js';
import { conflict, invalid, notFound } from '../wire/errors.js';
import { assertId } from './ids.js';
import { PAGE_SIZE, pageOf } from './paging.js';
import { lockWorkspaceOnce } from './workspaces.js';

/** Longest chat name a caller may choose, on every path (send's chat_name, rename, to_chat_name). */
export const MAX_CHAT_NAME = 200;

/** A chat name as a caller gave it, trimmed; refused when empty or longer than MAX_CHAT_NAME. */
export function chatNameOf(value: string, field = 'name'): string {
  const name = value.trim();
  if (name.length === 0 || name.length > MAX_CHAT_NAME) throw invalid(`${field} must be 1 to ${MAX_CHAT_NAME} characters`);
  return name;
}
/** The name a new chat with `contactPhone` takes: the name asked for, else the phone; refused as `chatNameOf` refuses. */
export const newChatName = (contactPhone: string, preferredName: string | undefined): string =>
  preferredName === undefined || preferredName.trim() === '' ? contactPhone : chatNameOf(preferredName, 'chat_name');
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The chat between an account and a contact, created when it does not exist yet. A new chat takes the
 * first free name among "Alice", "Alice (2)", "Alice (3)"..., and emits chat:created plus
 * chat:sent:created or chat:received:created. Call inside a write transaction (`ctx` is its context).
 */
export async function findOrCreateChat(
  ctx: EngineContext,
  account: AccountRow,
  contactPhone: string,
  startedBy: 'workspace' | 'contact',
  preferredName?: string,
): Promise<ChatRow> {
  const key = memoKeys.chat(account.id, contactPhone);
  const workspaceId = account.workspace_id;
  const known = ctx.sql.memo?.get(key) as ChatRow | undefined;
  if (known !== undefined) return takeChatMadeAhead(ctx, known, account);
  // A batch's prelude that looked for the chat and found none says so: the insert below is the one statement.
  if (ctx.sql.memo?.has(memoKeys.noChat(account.id, contactPhone)) !== true) {
    const existing = await readOnce(ctx, key, () => ctx.stores.chats.byPair(account.id, contactPhone));
    if (existing !== undefined) return takeChatMadeAhead(ctx, existing, account);
  }
  // A new chat takes the workspace's row lock first (PostgreSQL; SQLite has one writer anyway): two sends to
  // the same new contact, or two chats wanting the same free name, are then created one after the other.
  await lockWorkspaceOnce(ctx, workspaceId);
  const { chat, created } = await insertWithFreeName(ctx, account, contactPhone, newChatName(contactPhone, preferredName), startedBy);
  ctx.sql.memo?.set(key, chat);
  if (created) await emitChatCreated(ctx, chat, account);
  return created ? chat : takeChatMadeAhead(ctx, chat, account);
}

const emitChatCreated = async (ctx: EngineContext, chat: ChatRow, account: AccountRow): Promise<void> => {
  // Its events' bodies are built from the row just written and the account read for it, not read back (PostgreSQL).
  ctx.stores.messageEventViews.knowChat({ chat, account });
  await ctx.events.emit(ctx, { type: 'chat:created', workspaceId: chat.workspace_id, chatId: chat.id });
  const type = chat.started_by === 'workspace' ? 'chat:sent:created' : 'chat:received:created';
  await ctx.events.emit(ctx, { type, workspaceId: chat.workspace_id, chatId: chat.id });
};

/**
 * `chat`, after telling its events when a batch's prelude made it ahead for this transaction's writes and this
 * write is the first to use it (PostgreSQL, `DeferredWrites.takeChat`); a chat no write takes is removed.
 */
export async function takeChatMadeAhead(ctx: EngineContext, chat: ChatRow, account: AccountRow): Promise<ChatRow> {
  if (ctx.sql.deferred?.takeChat(chat.id) === true) await emitChatCreated(ctx, chat, account);
  return chat;
}

/**
 * Inserts the chat, behind the workspace's lock, under the first free name among "base", "base (2)", "base
 * (3)"...: one statement when "base" is free. When the insert finds a conflict, the chat itself may exist
 * (created by a writer whose lock this transaction waited for), otherwise the name is taken: an indexed
 * lookup of the highest "base (N)" and another insert. A rename may take that name meanwhile (renames do not
 * lock the workspace), hence a few tries.
 */
async function insertWithFreeName(
  ctx: EngineContext,
  account: AccountRow,
  contactPhone: string,
  base: string,
  startedBy: ChatRow['started_by'],
): Promise<{ chat: ChatRow; created: boolean }> {
  const insert = (name: string) => ctx.stores.chats.insertUnlessTaken({ account, contactPhone, name, startedBy, now: ctx.clock.now() });
  const first = await insert(base);
  if (first !== undefined) return { chat: first, created: true };
  const existing = await ctx.stores.chats.byPair(account.id, contactPhone);
  if (existing !== undefined) return { chat: existing, created: false };
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const next = await insert(`${base} (${Math.max(1, await ctx.stores.chats.highestNameSuffix(account.workspace_id, base)) + 1})`);
    if (next !== undefined) return { chat: next, created: true };
  }
  throw conflict(`no free chat name like "${base}" was found`, 'send again, or give another chat_name');
}

/** A chat of this workspace by id, or not_found (a chat of another workspace is not found either). */
export async function chatOfWorkspace(ctx: EngineContext, workspaceId: number, chatId: number): Promise<ChatRow> {
  assertId('chat id', chatId);
  const chat = await ctx.stores.chats.byId(workspaceId, chatId);
  if (chat === undefined) throw notFound(`chat ${chatId}`, 'list chats with `svc chats list`');
  return chat;
}

export function listChats(ctx: EngineContext, workspaceId: number, page: number): Promise<Page<ChatDto>> {
  return pageOf(page, (limit, offset) => ctx.stores.chats.pageWithLabels(workspaceId, limit, offset), (row) => chatDto(ctx, row, row.labels));
}

/** Renames a chat and assigns or unassigns it ("" unassigns), emitting chat:assigned / chat:unassigned. */
export function updateChat(ctx: EngineContext, workspaceId: number, chatId: number, input: ChatUpdateInput): Promise<ChatDto> {
  return inWriteTransaction(ctx, async (tx) => {
    const chat = await chatOfWorkspace(tx, workspaceId, chatId);
    const next = { id: chat.id, name: chat.name, responsible_email: chat.responsible_email, responsible_name: chat.responsible_name };
    if (input.name !== undefined) {
      const name = chatNameOf(input.name);
      if (name !== chat.name && (await tx.stores.chats.nameTaken(workspaceId, name))) {
        throw conflict(`a chat named "${name}" already exists`, 'chat names are unique in a workspace; pick another');
      }
      next.name = name;
    }
    let event: 'chat:assigned' | 'chat:unassigned' | null = null;
    if (input.responsible !== undefined) {
      const email = input.responsible.trim();
      if (email === '') {
        if (chat.responsible_email !== null) event = 'chat:unassigned';
        next.responsible_email = null;
        next.responsible_name = null;
      } else {
        if (!EMAIL.test(email)) throw invalid(`responsible must be an e-mail address or "" to unassign`);
        if (email !== chat.responsible_email) event = 'chat:assigned';
        next.responsible_email = email;
        next.responsible_name = email.split('@')[0] ?? email;
      }
    }
    await tx.stores.chats.update(next);
    if (event !== null) await tx.events.emit(tx, { type: event, workspaceId, chatId });
    return chatDto(tx, await chatOfWorkspace(tx, workspaceId, chatId));
  });
}

/** `labels` when the caller read them already (a page of chats reads them in one statement). */
export const chatDto = async (ctx: EngineContext, row: ChatRow, labels?: string[]): Promise<ChatDto> => ({
  id: row.id,
  name: row.name,
  phone: row.contact_phone,
  is_group: row.is_group === 1,
  messenger_account_phone: row.account_phone,
  // Absent, not null, while nobody is responsible: a client generated from the plain string types accepts it.
  ...(row.responsible_email === null ? {} : { responsible_email: row.responsible_email }),
  ...(row.responsible_name === null ? {} : { responsible_name: row.responsible_name }),
  labels: labels ?? (await ctx.stores.chats.labelsOf(row.id)),
  created_at: isoTime(row.created_at),
});
