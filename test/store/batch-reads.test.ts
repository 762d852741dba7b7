/**
 * The batch preludes' reads (PostgreSQL) return what the single-row reads they stand for return: the same
 * workspace, default sender and chat rows, field for field and type for type, though they come back as JSON.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createBatchReadStore } from '../../src/store/batch-read-store.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { query } from '../../src/store/sql.js';
import { postgresForThisFile } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('batchreads');
const PLAN_CACHE_MODE = query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`);
const PLANS = query<{ statement: string; generic_plans: number; custom_plans: number }>(
  'SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements',
);

describe('batch reads on PostgreSQL', () => {
  it('answer as the single-row reads do; the sends\' prelude makes the chats that do not exist', async () => {
    const engine = createEngine({ database: new PgDatabase({ url: pgUrl(), poolSize: 2 }), clock: new FakeClock(), random: fixedRandom() });
    try {
      const [a, b, none] = await Promise.all(['A', 'B', 'None'].map(async (name) => (await engine.admin.createWorkspace({ name, quota: 10 })).workspace_id)) as [number, number, number];
      await engine.sim(a).connect({ phone: '+15550007001' });
      await engine.sim(a).connect({ phone: '+15550007002' });
      await engine.sim(b).connect({ phone: '+15550007003' });
      await engine.workspace(a).sendToPhone({ phone: '+14155550801', text: 'x' });
      await engine.sim(b).receive({ to: '+15550007003', from: '+14155550802', text: 'y' });
      await engine.webhooks(b).create({ event_type: 'message:new', url: 'https://example.com/hook' });
      const stores = engine.context.stores;

      const sends = await engine.context.database.write(async (tx) =>
        createBatchReadStore(tx).prepareSends(
          [b, a, none],
          [
            { workspaceId: a, contactPhone: '+14155550801', chatName: null },
            { workspaceId: a, contactPhone: '+14155550899', chatName: 'Named' },
            // The first send to a contact names its chat; a name already taken makes none.
            { workspaceId: a, contactPhone: '+14155550899', chatName: 'Second' },
            { workspaceId: a, contactPhone: '+14155550898', chatName: '+14155550801' },
            { workspaceId: b, contactPhone: '+14155550802', chatName: null },
          ],
          1234,
        ),
      );
      const pairsOf = (rows: Array<[number, string | null]>) => rows.map((pair) => pair.join(' ')).sort();
      expect(pairsOf(sends.map((row) => [row.workspace.id, row.contact_phone]))).toEqual(
        pairsOf([[a, '+14155550801'], [a, '+14155550899'], [a, '+14155550898'], [b, '+14155550802'], [none, null]]),
      );
      for (const row of sends) {
        expect(row.workspace).toEqual(await stores.workspaces.byId(row.workspace.id));
        expect(row.sender ?? undefined).toEqual(await stores.accounts.defaultSender(row.workspace.id));
        // What the workspace subscribes to, so the batch's chat:created events need no probe of their own.
        expect(row.subscribed_events).toEqual(row.workspace.id === b ? ['message:new'] : []);
        const chat = row.sender === null ? undefined : await stores.chats.byPair(row.sender.id, row.contact_phone!);
        if (row.created === null) expect(row.chat ?? undefined).toEqual(chat);
        else expect({ ...row.created, account_phone: row.sender!.phone }).toEqual(chat);
      }
      const byContact = (phone: string) => sends.find((row) => row.contact_phone === phone)!;
      expect(byContact('+14155550801')).toMatchObject({ chat: expect.anything(), created: null });
      expect(byContact('+14155550899')).toMatchObject({ chat: null, created: { name: 'Named', started_by: 'workspace', created_at: 1234 } });
      expect(byContact('+14155550898')).toMatchObject({ chat: null, created: null });

      const incoming = await engine.context.database.write(async (tx) =>
        createBatchReadStore(tx).prepareIncoming(
          [
            { accountPhone: '+15550007003', contactPhone: '+14155550802', chatName: 'Ignored: the chat exists' },
            { accountPhone: '+15550009999', contactPhone: '+1415555000', chatName: '+1415555000' },
            { accountPhone: '+15550007003', contactPhone: '+14155550803', chatName: 'Zed' },
            { accountPhone: '+15550007003', contactPhone: '+14155550804', chatName: null },
          ],
          3,
          5678,
        ),
      );
      expect(incoming.messageIds).toHaveLength(3);
      expect(new Set(incoming.messageIds).size).toBe(3);
      expect(incoming.rows.map((row) => row.contact_phone).sort()).toEqual(['+14155550802', '+14155550803', '+14155550804']);
      for (const row of incoming.rows) {
        expect(row.account).toEqual(await stores.accounts.byPhone('+15550007003'));
        expect(row.subscribed_events).toEqual(['message:new']);
      }
      const incomingFor = (phone: string) => incoming.rows.find((row) => row.contact_phone === phone)!;
      expect(incomingFor('+14155550802')).toMatchObject({ chat: await stores.chats.byPair(incomingFor('+14155550802').account.id, '+14155550802'), created: null });
      expect(incomingFor('+14155550803')).toMatchObject({ chat: null, created: { name: 'Zed', started_by: 'contact', created_at: 5678 } });
      expect(incomingFor('+14155550804')).toMatchObject({ chat: null, created: null });
    } finally {
      await engine.close();
    }
  });

  it('the preludes of sends and incoming messages and the send claim run generic plans, and only they: the settings are back after them', async () => {
    // One pooled connection, so the prepared statements' counters read below are those of the batches' connection.
    const clock = new FakeClock();
    const engine = createEngine({ database: new PgDatabase({ url: pgUrl(), poolSize: 1 }), clock, random: fixedRandom(), deliverWebhooks: false });
    try {
      const ws = (await engine.admin.createWorkspace({ name: 'Plans', quota: 100 })).workspace_id;
      await engine.sim(ws).connect({ phone: '+15550007011' });
      for (let n = 0; n < 8; n += 1) {
        await engine.sim(ws).receive({ to: '+15550007011', from: `+1415555082${n}`, text: 'planned too' });
        await engine.workspace(ws).sendToPhone({ phone: `+1415555081${n}`, text: 'planned' });
        clock.advance(5_000);
        await engine.workers.runDue();
      }
      const plans = await engine.context.database.write(async (tx) => {
        const setting = await tx.get(PLAN_CACHE_MODE);
        await createBatchReadStore(tx).prepareSends([ws], [], 1);
        return { before: setting, after: await tx.get(PLAN_CACHE_MODE), counted: await tx.all(PLANS) };
      });
      expect(plans.before).toEqual({ mode: 'auto' });
      expect(plans.after).toEqual({ mode: 'auto' });
      // Left to themselves, PostgreSQL plans these anew at (almost) every call: their custom plans look cheaper.
      const of = (head: string) => plans.counted.find((row) => row.statement.startsWith(head))!;
      expect(of('WITH locked AS')).toMatchObject({ generic_plans: 9, custom_plans: 0 });
      expect(of('WITH p AS')).toMatchObject({ generic_plans: 8, custom_plans: 0 });
      expect(of('SELECT to_jsonb(j) AS job')).toMatchObject({ custom_plans: 0 });
      expect(of('SELECT to_jsonb(j) AS job').generic_plans).toBeGreaterThanOrEqual(8);
    } finally {
      await engine.close();
    }
  });
});
