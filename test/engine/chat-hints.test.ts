/**
 * New chats inside group commits. A batch's prelude notes the chats it looked for and did not find
 * (`memoKeys.noChat`), and the write goes straight to the insert. The note may be out of date by then (another
 * writer created the chat while the prelude waited for the workspace's lock, or an incoming batch, which
 * reads without the lock): the insert must then find that chat, on both stores, and emit no chat event. The
 * sends' prelude on PostgreSQL makes the missing chats ahead: a send that fails leaves none behind.
 */
import { describe, expect, it } from 'vitest';
import { findOrCreateChat } from '../../src/engine/chats.js';
import { inWriteTransaction } from '../../src/engine/context.js';
import { memoKeys } from '../../src/engine/memo-keys.js';
import type { AccountRow } from '../../src/store/account-store.js';
import { recordingSink } from '../support/engine-fixtures.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { query } from '../../src/store/sql.js';
import { testEngine } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('chathints');

describe.each(sqliteAndPostgres(() => pgUrl()))('a stale "no chat" note on %s', (_, open) => {
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

/**
 * On PostgreSQL: a workspace with a connected account whose `events` are subscribed, contacts new to it, and
 * the chat ids its outbox holds deliveries of `type` for (the outbox commits with the batch: an event of a
 * failed write's chat, or of a batch run again, is not in it).
 */
async function subscribedWorkspace(t: Awaited<ReturnType<typeof testEngine>>, events: string[]) {
  const stamp = String(Date.now());
  const ws = (await t.engine.admin.createWorkspace({ name: `Ahead ${stamp}`, quota: 3 })).workspace_id;
  const account = `+1555${stamp.slice(-7)}`;
  await t.engine.sim(ws).connect({ phone: account });
  for (const event_type of events) await t.engine.webhooks(ws).create({ event_type, url: 'https://example.com/hook' });
  const contacts = [0, 1, 2, 3].map((i) => `+1415${stamp.slice(-6)}${i}`);
  const told = async (type: string) =>
    (await t.ctx.sql.all(DELIVERIES, { type, ws })).map((row) => (JSON.parse(row.payload) as { chat: { chat_id: number } }).chat.chat_id).sort();
  return { ws, account, contacts, told };
}

describe('chats made ahead by the preludes on PostgreSQL', () => {
  it('sends: a batch whose last send is over quota: its chat is gone, the others have theirs and their webhook deliveries', async () => {
    const t = await testEngine({ database: new PgDatabase({ url: pgUrl(), poolSize: 2 }) });
    try {
      const { ws, contacts, told } = await subscribedWorkspace(t, ['chat:created', 'chat:sent:created']);
      const api = t.engine.workspace(ws);
      // Asked in one turn: one batch, its writes in this order; the fourth finds the quota spent.
      const results = await Promise.allSettled(contacts.map((phone) => api.sendToPhone({ phone, text: 'x' })));
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
      const chats = (await api.listChats(1)).items;
      expect(chats.map((chat) => chat.phone).sort()).toEqual(contacts.slice(0, 3).sort());
      expect(await told('chat:created')).toEqual(chats.map((chat) => chat.id).sort());
      expect(await told('chat:sent:created')).toEqual(chats.map((chat) => chat.id).sort());
    } finally {
      await t.engine.close();
    }
  });

  it('incoming: a batch with refused messages (a reply_to unknown, a name too long): no chat of theirs; the others have theirs', async () => {
    const t = await testEngine({ database: new PgDatabase({ url: pgUrl(), poolSize: 2 }) });
    try {
      const { ws, account, contacts, told } = await subscribedWorkspace(t, ['chat:created', 'chat:received:created']);
      const sim = t.engine.sim(ws);
      const results = await Promise.allSettled([
        sim.receive({ to: account, from: contacts[0]!, text: 'hi', contact_name: 'Ann' }),
        sim.receive({ to: account, from: contacts[1]!, text: 'hi', reply_to: '019bc186-de00-748d-91ef-08b255cd7099' }),
        sim.receive({ to: account, from: contacts[2]!, text: 'hi', contact_name: 'n'.repeat(201) }),
        sim.receive({ to: account, from: contacts[3]!, text: 'hi' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
      const chats = (await t.engine.workspace(ws).listChats(1)).items;
      expect(chats.map((chat) => [chat.phone, chat.name]).sort()).toEqual([[contacts[0], 'Ann'], [contacts[3], contacts[3]]].sort());
      expect(await told('chat:created')).toEqual(chats.map((chat) => chat.id).sort());
      expect(await told('chat:received:created')).toEqual(chats.map((chat) => chat.id).sort());
    } finally {
      await t.engine.close();
    }
  });
});

const DELIVERIES = query<{ payload: string }>(
  `SELECT d.payload FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
   WHERE d.event_type = @type AND s.workspace_id = @ws`,
);
