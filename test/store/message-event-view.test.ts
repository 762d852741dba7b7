/**
 * A message event's view (src/store/message-event-view.ts) is what the single-row reads return, field for
 * field and type for type, on both stores: on PostgreSQL it is one statement returning JSON.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import type { TestDatabase } from '../support/postgres.js';
import { createMigratedTestDatabase, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

let pgDatabase: TestDatabase;
beforeAll(async () => {
  pgDatabase = await createMigratedTestDatabase('eventview');
});
afterAll(async () => {
  await pgDatabase?.drop();
});

const stores = sqliteAndPostgres(() => pgDatabase.url, 2);

describe.each(stores)('message event view on %s', (_, open) => {
  it('answers as the single-row reads do: a sent message with a file, a received one with reactions, a missing one', async () => {
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom() });
    try {
      const ws = (await engine.admin.createWorkspace({ name: `View ${Date.now()}`, quota: 10 })).workspace_id;
      const phone = `+1555${String(Date.now()).slice(-7)}`;
      await engine.sim(ws).connect({ phone });
      const api = engine.workspace(ws);
      const file = await api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('hello') });
      const sent = await api.sendToPhone({ phone: '+14155550811', text: 'with a file', file_uid: file.uid });
      const received = await engine.sim(ws).receive({ to: phone, from: '+14155550812', text: 'hi' });
      await engine.sim(ws).react({ message_uid: received.message_uid, emoji: '👍' });
      await engine.sim(ws).react({ message_uid: received.message_uid, emoji: '👍' });
      await engine.sim(ws).react({ message_uid: received.message_uid, emoji: '🎉' });

      const s = engine.context.stores;
      for (const uid of [sent.message_uid, received.message_uid]) {
        const message = (await s.messages.byUid(uid))!;
        const view = await s.messageEventViews.ofMessage(message.id);
        expect(view).toEqual({
          message,
          chat: await s.chats.byId(message.workspace_id, message.chat_id),
          account: await s.accounts.byId(message.messenger_account_id),
          file: message.file_id === null ? undefined : await s.files.byId(message.file_id),
          reactions: await s.messages.reactionsOf(message.id),
        });
      }
      const withReactions = await s.messageEventViews.ofMessage((await s.messages.byUid(received.message_uid))!.id);
      expect(withReactions!.reactions).toEqual({ '🎉': '1', '👍': '2' });
      expect((await s.messageEventViews.ofMessage((await s.messages.byUid(sent.message_uid))!.id))!.file).toMatchObject({ uid: file.uid });
      expect(await s.messageEventViews.ofMessage(987_654_321)).toBeUndefined();
    } finally {
      await engine.close();
    }
  });
});
