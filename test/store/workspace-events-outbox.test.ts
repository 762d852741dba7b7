/**
 * The deliveries of many workspace events at once (`enqueueWorkspaceEvents`, written at the end of a
 * transaction: one statement on PostgreSQL), on both stores: one delivery per enabled subscription naming the
 * event, in the order of the events, the deliveries of one event sharing one webhook-id; nothing for an event
 * nobody subscribes to.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { createDeliveryStore } from '../../src/store/webhooks/delivery-store.js';
import { query } from '../../src/store/sql.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('eventsoutbox');

const DELIVERIES = query<{ id: number; subscription_id: number; webhook_msg_id: string; event_type: string; payload: string; status: string }>(
  `SELECT d.id, d.subscription_id, d.webhook_msg_id, d.event_type, d.payload, d.status FROM webhook_deliveries d
   JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.workspace_id IN (@a, @b) ORDER BY d.id`,
);

describe.each(sqliteAndPostgres(() => pgUrl()))('workspace events into the outbox on %s', (_, open) => {
  it('one delivery per matching subscription, in event order, one webhook-id per event', async () => {
    const engine = createEngine({ database: open(), clock: new FakeClock(), random: fixedRandom() });
    try {
      const [a, b] = [
        (await engine.admin.createWorkspace({ name: `A ${Date.now()}`, quota: 1 })).workspace_id,
        (await engine.admin.createWorkspace({ name: `B ${Date.now()}`, quota: 1 })).workspace_id,
      ];
      const hook = (ws: number, event_type: string, url: string) => engine.webhooks(ws).create({ event_type, url });
      const a1 = (await hook(a, 'message:new', 'https://one.example.com/h')).id;
      const a2 = (await hook(a, 'message:new', 'https://two.example.com/h')).id;
      const aChat = (await hook(a, 'chat:created', 'https://one.example.com/h')).id;
      const bNew = (await hook(b, 'message:new', 'https://three.example.com/h')).id;
      await engine.webhooks(b).update(bNew, { enabled: false });

      await engine.context.database.write((tx) =>
        createDeliveryStore(tx, generateMessageId).enqueueWorkspaceEvents([
          { workspaceId: a, eventType: 'chat:created', payload: { n: 1 }, now: 10 },
          { workspaceId: b, eventType: 'message:new', payload: { n: 2 }, now: 10 },
          { workspaceId: a, eventType: 'message:new', payload: '{"n":3}', now: 11 },
          { workspaceId: a, eventType: 'chat:assigned', payload: { n: 4 }, now: 11 },
        ]),
      );
      const rows = await engine.context.sql.all(DELIVERIES, { a, b });
      expect(rows.map((r) => [r.subscription_id, r.event_type, r.payload, r.status])).toEqual([
        [aChat, 'chat:created', '{"n":1}', 'pending'],
        [a1, 'message:new', '{"n":3}', 'pending'],
        [a2, 'message:new', '{"n":3}', 'pending'],
      ]);
      expect(rows[1]!.webhook_msg_id).toBe(rows[2]!.webhook_msg_id);
      expect(rows[0]!.webhook_msg_id).not.toBe(rows[1]!.webhook_msg_id);
      expect(rows[0]!.webhook_msg_id).toMatch(/^msg_/);
    } finally {
      await engine.close();
    }
  });
});
