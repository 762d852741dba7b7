/**
 * The views events are built from (src/store/message-event-view.ts) are what the single-row reads return,
 * field for field and type for type, on both stores: on PostgreSQL one statement for many messages or chats,
 * returning JSON. Incoming messages and new chats are not read back on PostgreSQL (their transaction wrote them):
 * their events' bodies are the ones a read gives all the same.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { inWriteTransaction } from '../../src/engine/context.js';
import { buildEventPayloads, type WorkspaceEvent } from '../../src/engine/webhooks/payloads.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { query } from '../../src/store/sql.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('eventview');
const QUEUED_BODIES = query<{ payload: string }>('SELECT payload FROM webhook_deliveries ORDER BY id');

const stores = sqliteAndPostgres(() => pgUrl(), 2);

describe.each(stores)('message event view on %s', (_, open) => {
  let accounts = 0;
  /** An engine on the store with a workspace whose account `phone` is connected; closed once `run` ends. */
  async function withAccount(name: string, run: (engine: ReturnType<typeof createEngine>, ws: number, phone: string) => Promise<void>, deliverWebhooks = true) {
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom(), deliverWebhooks });
    try {
      const ws = (await engine.admin.createWorkspace({ name: `${name} ${Date.now()}`, quota: 10 })).workspace_id;
      const phone = `+1555${String(Date.now() + accounts++).slice(-7)}`;
      await engine.sim(ws).connect({ phone });
      await run(engine, ws, phone);
    } finally {
      await engine.close();
    }
  }

  it('answers as the single-row reads do: a sent message with a file, a received reply with reactions, a missing one, their chats', async () => {
    await withAccount('View', async (engine, ws, phone) => {
      const api = engine.workspace(ws);
      const file = await api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('hello') });
      const sent = await api.sendToPhone({ phone: '+14155550811', text: 'with a file', file_uid: file.uid });
      const received = await engine.sim(ws).receive({ to: phone, from: '+14155550811', text: 'hi', reply_to: sent.message_uid });
      await engine.sim(ws).react({ message_uid: received.message_uid, emoji: '👍' });
      await engine.sim(ws).react({ message_uid: received.message_uid, emoji: '👍' });
      await engine.sim(ws).react({ message_uid: received.message_uid, emoji: '🎉' });

      const s = engine.context.stores;
      const messages = [(await s.messages.byUid(sent.message_uid))!, (await s.messages.byUid(received.message_uid))!];
      const views = (await s.messageEventViews.of([...messages.map((m) => m.id), 987_654_321], [])).messages;
      expect([...views.keys()].sort()).toEqual(messages.map((m) => m.id).sort());
      for (const message of messages) {
        expect(views.get(message.id)).toEqual({
          message,
          chat: await s.chats.byId(message.workspace_id, message.chat_id),
          account: await s.accounts.byId(message.messenger_account_id),
          file: message.file_id === null ? undefined : await s.files.byId(message.file_id),
          reactions: await s.messages.reactionsOf(message.id),
        });
      }
      expect(views.get(messages[1]!.id)!.reactions).toEqual({ '🎉': '1', '👍': '2' });
      expect(views.get(messages[0]!.id)!.file).toMatchObject({ uid: file.uid });
      expect(views.get(messages[1]!.id)!.message.reply_to_uid).toBe(sent.message_uid);
      // One message alone answers as it does among others.
      for (const message of messages) expect((await s.messageEventViews.of([message.id], [])).messages).toEqual(new Map([[message.id, views.get(message.id)]]));
      expect((await s.messageEventViews.of([987_654_321], [])).messages.size).toBe(0);

      // Chats: a chat asked for under another workspace is not found, as chats.byId answers.
      const chatIds = [...new Set(messages.map((m) => m.chat_id))];
      const chats = (await s.messageEventViews.of([], [...chatIds.map((id) => ({ id, workspaceId: ws })), { id: 987_654_321, workspaceId: ws }])).chats;
      expect(chats.size).toBe(chatIds.length);
      expect((await s.messageEventViews.of([], [{ id: chatIds[0]!, workspaceId: ws + 1000 }])).chats.size).toBe(0);
      for (const id of chatIds) {
        const chat = (await s.chats.byId(ws, id))!;
        expect(chats.get(id)).toEqual({ chat, account: await s.accounts.byId(chat.messenger_account_id) });
      }
      // Both kinds in one call (one statement on PostgreSQL) answer as each kind alone.
      const both = await s.messageEventViews.of(messages.map((m) => m.id), chatIds.map((id) => ({ id, workspaceId: ws })));
      expect(both).toEqual({ messages: views, chats });
    });
  });

  it('gives an incoming message\'s and its new chat\'s events, received in one group commit, the bodies a read of their rows gives', async () => {
    await withAccount('Known', async (engine, ws, phone) => {
      const api = engine.workspace(ws);
      const types = ['message:received:new', 'message:new', 'chat:created', 'chat:received:created'] as const;
      for (const event_type of types) await engine.webhooks(ws).create({ event_type, url: 'https://example.com/hook' });
      const file = await api.uploadFile({ filename: 'b.txt', mimetype: 'text/plain', content: Buffer.from('bytes') });
      const first = await engine.sim(ws).receive({ to: phone, from: '+14155550821', text: 'first', contact_name: 'Ann' });
      // One turn: one group commit of a reply with a file in Ann's chat, and two first contacts (chats made ahead).
      const received = await Promise.all([
        engine.sim(ws).receive({ to: phone, from: '+14155550821', text: 'reply', reply_to: first.message_uid, file_uid: file.uid }),
        engine.sim(ws).receive({ to: phone, from: '+14155550822', text: 'new one' }),
        engine.sim(ws).receive({ to: phone, from: '+14155550823', text: 'another', contact_name: 'Bo' }),
      ]);

      const s = engine.context.stores;
      const events: WorkspaceEvent[] = [];
      for (const { message_uid: uid } of [first, ...received]) {
        const message = (await s.messages.byUid(uid))!;
        events.push({ type: 'message:received:new', workspaceId: ws, messageId: message.id }, { type: 'message:new', workspaceId: ws, messageId: message.id });
      }
      for (const chat of (await api.listChats(1)).items) {
        events.push({ type: 'chat:created', workspaceId: ws, chatId: chat.id }, { type: 'chat:received:created', workspaceId: ws, chatId: chat.id });
      }
      // Read now, in a transaction of their own that wrote none of them.
      const read = await inWriteTransaction(engine.context, (tx) => buildEventPayloads(tx, events));
      expect(read.every((payload) => payload !== null)).toBe(true);
      const queued = (await engine.context.sql.all(QUEUED_BODIES)).map((row) => JSON.parse(row.payload) as unknown);
      expect(queued).toHaveLength(events.length);
      expect(new Set(queued.map((body) => JSON.stringify(body)))).toEqual(new Set(read.map((body) => JSON.stringify(body))));
      expect(queued).toContainEqual(expect.objectContaining({ message: expect.objectContaining({ text: 'reply', reply_to_uid: first.message_uid, attachments: [expect.objectContaining({ filename: 'b.txt' })] }) }));
    }, false);
  });

  it('reads a view back once the transaction changed a row of it (PostgreSQL knew it from the write)', async () => {
    await withAccount('Forget', async (engine, ws, phone) => {
      const received = await engine.sim(ws).receive({ to: phone, from: '+14155550831', text: 'hi' });
      const views = await inWriteTransaction(engine.context, async (tx) => {
        const message = (await tx.stores.messages.byUid(received.message_uid))!;
        const chat = (await tx.stores.chats.byId(ws, message.chat_id))!;
        const account = (await tx.stores.accounts.byId(message.messenger_account_id))!;
        const written = { id: message.id, uid: message.uid, workspaceId: ws, chatId: chat.id, accountId: account.id, text: 'hi', fileId: null, replyToId: null, now: message.created_at };
        tx.stores.messageEventViews.knowReceived({ message: written, chat, account, file: undefined, replyToUid: null });
        tx.stores.messageEventViews.knowChat({ chat, account });
        const known = await tx.stores.messageEventViews.of([message.id], [{ id: chat.id, workspaceId: ws }]);
        await tx.stores.chats.update({ id: chat.id, name: 'Renamed', responsible_email: null, responsible_name: null });
        return { known, after: await tx.stores.messageEventViews.of([message.id], [{ id: chat.id, workspaceId: ws }]), message };
      });
      // Known or read, the view before the rename is the row's; after it, the renamed chat on either store.
      expect(views.known.messages.get(views.message.id)).toMatchObject({ message: { id: views.message.id, text: 'hi', status: 'Sent', direction: 'received' }, reactions: null });
      expect(views.after.messages.get(views.message.id)!.chat.name).toBe('Renamed');
      expect(views.after.chats.get(views.message.chat_id)!.chat.name).toBe('Renamed');
    }, false);
  });
});
