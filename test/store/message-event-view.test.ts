/**
 * The views events are built from (src/store/message-event-view.ts) are what the single-row reads return,
 * field for field and type for type, on both stores: on PostgreSQL one statement for many messages or chats,
 * returning JSON.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('eventview');

const stores = sqliteAndPostgres(() => pgUrl(), 2);

describe.each(stores)('message event view on %s', (_, open) => {
  it('answers as the single-row reads do: a sent message with a file, a received reply with reactions, a missing one, their chats', async () => {
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom() });
    try {
      const ws = (await engine.admin.createWorkspace({ name: `View ${Date.now()}`, quota: 10 })).workspace_id;
      const phone = `+1555${String(Date.now()).slice(-7)}`;
      await engine.sim(ws).connect({ phone });
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
    } finally {
      await engine.close();
    }
  });
});
