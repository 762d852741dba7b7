/**
 * A batch's prelude notes the chats it looked for and did not find (`memoKeys.noChat`), and the write goes
 * straight to the insert. The note may be out of date by then (another writer created the chat while the
 * prelude waited for the workspace's lock, or an incoming batch, which reads without the lock): the insert
 * must then find that chat, on both stores, and emit no chat event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrCreateChat } from '../../src/engine/chats.js';
import { inWriteTransaction } from '../../src/engine/context.js';
import { memoKeys } from '../../src/engine/memo-keys.js';
import type { AccountRow } from '../../src/store/account-store.js';
import type { TestDatabase } from '../support/postgres.js';
import { recordingSink } from '../support/engine-fixtures.js';
import { createMigratedTestDatabase, sqliteAndPostgres } from '../support/store-engine.js';
import { testEngine } from '../support/test-engine.js';

let pgDatabase: TestDatabase;
beforeAll(async () => {
  pgDatabase = await createMigratedTestDatabase('chathints');
});
afterAll(async () => {
  await pgDatabase?.drop();
});

describe.each(sqliteAndPostgres(() => pgDatabase.url))('a stale "no chat" note on %s', (_, open) => {
  it('finds the chat that exists, makes no second one and emits nothing; a true note creates the chat with its events', async () => {
    const sink = recordingSink();
    const t = await testEngine({ database: open(), events: sink.parts });
    try {
      const contact = `+1415${String(Date.now()).slice(-7)}`;
      const { chat_id: existingId } = await t.api.sendToPhone({ phone: contact, text: 'first' });
      const account = (await t.ctx.stores.accounts.byPhone('+15550000001')) as AccountRow;
      sink.clear();

      const found = await inWriteTransaction(t.ctx, async (tx) => {
        tx.sql.memo?.set(memoKeys.noChat(account.id, contact), true);
        return findOrCreateChat(tx, account, contact, 'workspace');
      });
      expect(found.id).toBe(existingId);
      expect(sink.events).toEqual([]);

      const newContact = `${contact.slice(0, -1)}${(Number(contact.at(-1)) + 1) % 10}`;
      const created = await inWriteTransaction(t.ctx, async (tx) => {
        tx.sql.memo?.set(memoKeys.noChat(account.id, newContact), true);
        return findOrCreateChat(tx, account, newContact, 'workspace');
      });
      expect(created).toMatchObject({ contact_phone: newContact, name: newContact, account_phone: '+15550000001' });
      expect(sink.events.map((event) => event.type)).toEqual(['chat:created', 'chat:sent:created']);
      expect((await t.api.listChats(1)).items.filter((chat) => [contact, newContact].includes(chat.phone))).toHaveLength(2);
    } finally {
      await t.engine.close();
    }
  });
});
