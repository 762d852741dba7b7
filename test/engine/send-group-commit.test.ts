/**
 * Group commit of sends and incoming messages, on both stores: the sends of one event-loop turn share one
 * transaction (on PostgreSQL: one transaction id for all their rows), and a send that fails in the middle of
 * a batch, after it wrote its chat and message, undoes only itself while the others commit.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { isSvcError } from '../../src/wire/errors.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createStores } from '../../src/engine/context.js';
import { query } from '../../src/store/sql.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('groupsend');

const stores = sqliteAndPostgres(() => pgUrl(), 4);

const COUNT = (table: string) => query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE workspace_id = @ws`);
const JOBS = query<{ n: number }>("SELECT COUNT(*) AS n FROM jobs j JOIN messages m ON m.id = j.ref_id WHERE j.kind = 'send' AND m.workspace_id = @ws");
const CHAT_PHONES = query<{ contact_phone: string }>('SELECT contact_phone FROM chats WHERE workspace_id = @ws ORDER BY contact_phone');
const TRANSACTIONS = query<{ n: number }>({ sqlite: '', postgres: 'SELECT COUNT(DISTINCT xmin::text) AS n FROM messages WHERE workspace_id = @ws' });

describe.each(stores)('group commit of sends on %s', (_name, open) => {
  let accounts = 0;
  async function setup(quota: number) {
    accounts += 1;
    const account = `+1555000300${accounts}`;
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom() });
    const ws = (await engine.admin.createWorkspace({ name: 'Batch', quota })).workspace_id;
    await engine.sim(ws).connect({ phone: account });
    const api = engine.workspace(ws);
    const count = async (table: string) => (await engine.context.sql.get(COUNT(table), { ws }))!.n;
    const state = async () => ({
      messages: await count('messages'),
      jobs: (await engine.context.sql.get(JOBS, { ws }))!.n,
      ledger: await count('credit_ledger'),
      labels: await count('labels'),
      chats: (await engine.context.sql.all(CHAT_PHONES, { ws })).map((row) => row.contact_phone),
      used: (await api.getWorkspace()).messaging_quota.used,
    });
    return { engine, ws, api, state, account };
  }

  it('the sends of one turn are one transaction', async () => {
    const t = await setup(100);
    try {
      const sent = await Promise.all(Array.from({ length: 20 }, (_, i) => t.api.sendToPhone({ phone: `+1415555040${i % 4}`, text: `m${i}` })));
      expect(new Set(sent.map((s) => s.message_uid)).size).toBe(20);
      expect(await t.state()).toMatchObject({ messages: 20, jobs: 20, ledger: 20, used: 20 });
      // On PostgreSQL every row a transaction writes carries its id (xmin): one id, one transaction.
      if (t.engine.context.database.dialect === 'postgres') expect((await t.engine.context.sql.get(TRANSACTIONS, { ws: t.ws }))!.n).toBe(1);
    } finally {
      await t.engine.close();
    }
  });

  it('a deferred send its quota does not cover fails its whole transaction at the flush: nothing of it is written', async () => {
    const t = await setup(1);
    try {
      const first = await t.api.sendToPhone({ phone: '+14155550801', text: 'covered' });
      const message = (await t.engine.context.stores.messages.byUid(first.message_uid))!;
      // Past the engine's own check (which refuses it): the store's guard, inside the statement on PostgreSQL.
      const failed = await t.engine.context.database.write(async (tx) => {
        await tx.run(query("UPDATE chats SET name = 'renamed in the failed transaction' WHERE id = @id"), { id: message.chat_id });
        createStores(tx).messages.acceptSend({
          uid: 'not-covered', workspaceId: t.ws, chatId: message.chat_id, accountId: message.messenger_account_id, text: 'over',
          fileId: null, templateId: null, replyToId: null, credits: 1, now: 1,
        });
      }).catch((error: unknown) => error);
      expect(String(failed)).toContain('accepted sends exceed their quota');
      expect(await t.state()).toMatchObject({ messages: 1, jobs: 1, ledger: 1, used: 1 });
      expect((await t.engine.context.stores.chats.byId(t.ws, message.chat_id))!.name).not.toBe('renamed in the failed transaction');
    } finally {
      await t.engine.close();
    }
  });

  it('a batch holding one failing send commits the others', async () => {
    const t = await setup(3);
    try {
      const file = await t.api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('x') });
      // One turn: 1 + 2 credits fill the quota of 3; the third send, last in the batch, is refused after it
      // wrote its new chat, its label and its message.
      const results = await Promise.allSettled([
        t.api.sendToPhone({ phone: '+14155550101', text: 'one' }),
        t.api.sendToPhone({ phone: '+14155550102', text: 'two', file_uid: file.uid }),
        t.api.sendToPhone({ phone: '+14155550103', text: 'three', label: 'Refused' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      const refused = (results[2] as PromiseRejectedResult).reason;
      expect(isSvcError(refused) && refused.code).toBe('quota_exceeded');
      expect(await t.state()).toEqual({ messages: 2, jobs: 2, ledger: 2, labels: 0, chats: ['+14155550101', '+14155550102'], used: 3 });
    } finally {
      await t.engine.close();
    }
  });

  it('the failing send may sit in the middle of the batch; the next batches commit too', async () => {
    const t = await setup(2);
    try {
      const file = await t.api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('x') });
      const results = await Promise.allSettled([
        t.api.sendToPhone({ phone: '+14155550201', text: 'first' }),
        // Needs 2 credits with 1 left: refused after its new chat, label and message were written.
        t.api.sendToPhone({ phone: '+14155550202', text: 'second', file_uid: file.uid, label: 'Gone' }),
        t.api.sendToPhone({ phone: '+14155550203', text: 'third' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await t.state()).toEqual({ messages: 2, jobs: 2, ledger: 2, labels: 0, chats: ['+14155550201', '+14155550203'], used: 2 });
      await t.engine.admin.updateWorkspace(t.ws, { quota: 4 });
      const next = await Promise.allSettled([
        t.api.sendToPhone({ phone: '+14155550201', text: 'fourth' }),
        t.api.sendToPhone({ phone: '+14155550204', text: 'fifth', file_uid: file.uid }),
        t.api.sendToPhone({ phone: '+14155550205', text: 'sixth' }),
      ]);
      expect(next.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect((await t.state()).used).toBe(4);
    } finally {
      await t.engine.close();
    }
  });

  it('a write that fails after accepting a send takes its send back; the others are written', async () => {
    const t = await setup(10);
    try {
      const first = await t.api.sendToPhone({ phone: '+14155550401', text: 'first' });
      const account = (await t.engine.context.stores.accounts.byPhone(t.account))!;
      const accept = (uid: string, fail: boolean) =>
        t.engine.context.database.write(async (tx) => {
          createStores(tx).messages.acceptSend({
            uid, workspaceId: t.ws, chatId: first.chat_id, accountId: account.id, text: uid, fileId: null, templateId: null, replyToId: null, credits: 1, now: 1,
          });
          if (fail) throw new Error(`${uid} refused after accepting`);
          return uid;
        }, { grouped: true, isolation: 'read committed', order: t.ws });
      const results = await Promise.allSettled([accept('msg_a', false), accept('msg_b', true), accept('msg_c', false)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
      expect(await t.state()).toMatchObject({ messages: 3, jobs: 3, ledger: 3, used: 3 });
      const uids = await t.engine.context.sql.all(query<{ uid: string }>('SELECT uid FROM messages WHERE workspace_id = @ws ORDER BY id'), { ws: t.ws });
      expect(uids.map((row) => row.uid)).toEqual([first.message_uid, 'msg_a', 'msg_c']);
    } finally {
      await t.engine.close();
    }
  });

  it('incoming messages share the group commit: two from one new contact in a batch make one chat', async () => {
    const t = await setup(10);
    try {
      const received = await Promise.all(
        ['+14155550301', '+14155550302', '+14155550301'].map((from, i) => t.engine.sim(t.ws).receive({ to: t.account, from, text: `in ${i}` })),
      );
      expect(received[0]!.chat_id).toBe(received[2]!.chat_id);
      expect(await t.state()).toMatchObject({ messages: 3, chats: ['+14155550301', '+14155550302'], used: 0 });
    } finally {
      await t.engine.close();
    }
  });
});

describe.each(stores)('a batch over several workspaces on %s', (_name, open) => {
  const ALL_TRANSACTIONS = query<{ n: number }>({ sqlite: '', postgres: 'SELECT COUNT(DISTINCT xmin::text) AS n FROM messages WHERE workspace_id = ANY(@ids::bigint[])' });

  let setups = 0;
  async function setup(quotas: number[]) {
    setups += 1;
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom() });
    const workspaces: Array<{ ws: number; account: string; api: ReturnType<typeof engine.workspace> }> = [];
    for (const [n, quota] of quotas.entries()) {
      const ws = (await engine.admin.createWorkspace({ name: `Batch ${n}`, quota })).workspace_id;
      const account = `+155500041${setups}${n}`;
      await engine.sim(ws).connect({ phone: account });
      workspaces.push({ ws, account, api: engine.workspace(ws) });
    }
    const used = async () => Promise.all(workspaces.map(async (w) => (await w.api.getWorkspace()).messaging_quota.used));
    return { engine, workspaces, used };
  }

  it('sends to 4 workspaces in one turn share one transaction, and each quota stays exact', async () => {
    const t = await setup([5, 3, 5, 2]);
    try {
      // 4 sends per workspace, interleaved: workspaces 2 and 4 have room for 3 and 2 of them.
      const results = await Promise.allSettled(
        Array.from({ length: 16 }, (_, i) => t.workspaces[i % 4]!.api.sendToPhone({ phone: `+1415555060${Math.floor(i / 4)}`, text: `m${i}` })),
      );
      const accepted = t.workspaces.map((_, w) => results.filter((r, i) => i % 4 === w && r.status === 'fulfilled').length);
      expect(accepted).toEqual([4, 3, 4, 2]);
      expect(await t.used()).toEqual([4, 3, 4, 2]);
      for (const [i, result] of results.entries()) {
        if (result.status === 'rejected') expect(isSvcError(result.reason) && result.reason.code).toBe('quota_exceeded');
        else expect(result.value.chat_id).toBe((await t.workspaces[i % 4]!.api.listChats(1)).items.find((c) => c.phone === `+1415555060${Math.floor(i / 4)}`)?.id);
      }
      // The same contacts again, chats known now: the batch reads them for every workspace at once.
      const again = await Promise.all([0, 2].map((w) => t.workspaces[w]!.api.sendToPhone({ phone: '+14155550600', text: 'again' })));
      expect(again.map((s) => s.status)).toEqual(['Pending', 'Pending']);
      expect(await t.used()).toEqual([5, 3, 5, 2]);
      if (t.engine.context.database.dialect === 'postgres') {
        const ids = t.workspaces.map((w) => w.ws);
        expect((await t.engine.context.sql.get(ALL_TRANSACTIONS, { ids }))!.n).toBe(2);
      }
    } finally {
      await t.engine.close();
    }
  });

  it('incoming messages of a batch, one refused, reach their subscribers: each event finds its message', async () => {
    const t = await setup([5, 5]);
    try {
      const [a, b] = t.workspaces as [(typeof t.workspaces)[0], (typeof t.workspaces)[0]];
      await t.engine.webhooks(a.ws).create({ event_type: 'message:received:new', url: 'https://example.com/hook' });
      const results = await Promise.allSettled([
        t.engine.sim(a.ws).receive({ to: a.account, from: '+14155550711', text: 'first' }),
        t.engine.sim(b.ws).receive({ to: b.account, from: '+14155550712', text: 'unsubscribed' }),
        t.engine.sim(a.ws).receive({ to: a.account, from: '+14155550713', text: 'refused', reply_to: 'msg_unknown' }),
        t.engine.sim(a.ws).receive({ to: a.account, from: '+14155550711', text: 'second' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
      const payloads = await t.engine.context.sql.all(query<{ payload: string }>('SELECT payload FROM webhook_deliveries ORDER BY id'));
      const uids = payloads.map((row) => (JSON.parse(row.payload) as { message: { message_uid: string } }).message.message_uid);
      const accepted = [results[0], results[3]].map((r) => (r as PromiseFulfilledResult<{ message_uid: string }>).value.message_uid);
      expect(uids.filter((uid) => accepted.includes(uid))).toEqual(accepted);
      const texts = await t.engine.context.sql.all(query<{ text: string }>('SELECT text FROM messages WHERE workspace_id = @ws ORDER BY id'), { ws: a.ws });
      expect(texts.map((row) => row.text)).toEqual(['first', 'second']);
    } finally {
      await t.engine.close();
    }
  });

  it('sends of a batch to new contacts tell chat:created to the workspace subscribed to it, and to no other', async () => {
    const t = await setup([5, 5]);
    try {
      const [a, b] = t.workspaces as [(typeof t.workspaces)[0], (typeof t.workspaces)[0]];
      await t.engine.webhooks(a.ws).create({ event_type: 'chat:created', url: 'https://example.com/hook' });
      await t.engine.webhooks(b.ws).create({ event_type: 'message:new', url: 'https://example.com/hook' });
      const sent = await Promise.all([
        a.api.sendToPhone({ phone: '+14155550721', text: 'a1' }),
        b.api.sendToPhone({ phone: '+14155550722', text: 'b1' }),
        a.api.sendToPhone({ phone: '+14155550723', text: 'a2' }),
      ]);
      const rows = await t.engine.context.sql.all(query<{ event_type: string; payload: string }>(
        `SELECT d.event_type, d.payload FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
         WHERE s.workspace_id IN (@a, @b) ORDER BY d.id`,
      ), { a: a.ws, b: b.ws });
      expect(rows.map((row) => [row.event_type, (JSON.parse(row.payload) as { chat: { chat_id: number } }).chat.chat_id])).toEqual([
        ['chat:created', sent[0].chat_id],
        ['chat:created', sent[2].chat_id],
      ]);
    } finally {
      await t.engine.close();
    }
  });

  it('wakes the dispatcher when a send starts its account\'s queue; behind a queued send only SQLite wakes it', async () => {
    const t = await setup([10]);
    try {
      const woken: string[] = [];
      const wake = t.engine.context.wake;
      t.engine.context.wake = (topic) => {
        woken.push(topic);
        wake(topic);
      };
      const api = t.workspaces[0]!.api;
      await api.sendToPhone({ phone: '+14155550721', text: 'first: a new queue' });
      expect(woken).toEqual(['send']);
      await Promise.all([api.sendToPhone({ phone: '+14155550721', text: 'behind it' }), api.sendToPhone({ phone: '+14155550722', text: 'and another' })]);
      expect(woken).toEqual(t.engine.context.database.dialect === 'postgres' ? ['send'] : ['send', 'send', 'send']);
    } finally {
      await t.engine.close();
    }
  });

  it('an incoming message addressed through another workspace is refused alone; the batch commits', async () => {
    const t = await setup([5, 5]);
    try {
      const [a, b] = t.workspaces as [(typeof t.workspaces)[0], (typeof t.workspaces)[0]];
      const results = await Promise.allSettled([
        t.engine.sim(a.ws).receive({ to: a.account, from: '+14155550701', text: 'to a' }),
        t.engine.sim(a.ws).receive({ to: b.account, from: '+14155550702', text: 'through the wrong workspace' }),
        t.engine.sim(b.ws).receive({ to: b.account, from: '+14155550703', text: 'to b' }),
        t.engine.sim(b.ws).receive({ to: '+15550009999', from: '+14155550704', text: 'no such account' }),
      ]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
      for (const refused of [results[1], results[3]] as PromiseRejectedResult[]) {
        expect(isSvcError(refused.reason) && refused.reason.code).toBe('not_found');
      }
      const chats = await Promise.all([a, b].map(async (w) => (await w.api.listChats(1)).items.map((c) => c.phone)));
      expect(chats).toEqual([['+14155550701'], ['+14155550703']]);
      // What is wrong with the message itself is reported after an account of another workspace, as before.
      await expect(t.engine.sim(a.ws).receive({ to: b.account, from: 'not a phone', text: 'x' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(t.engine.sim(a.ws).receive({ to: a.account, from: 'not a phone', text: 'x' })).rejects.toMatchObject({ code: 'validation_error' });
    } finally {
      await t.engine.close();
    }
  });
});
