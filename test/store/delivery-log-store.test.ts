import { describe, expect, it } from 'vitest';
import { FakeClock, isoTime } from '../../src/wire/clock.js';
import { createDeliveryLogStore } from '../../src/store/webhooks/delivery-log-store.js';
import { DEFAULT_ATTEMPT_RULES, insertSubscription, insertWorkspace, openOutbox } from '../support/webhook-helpers.js';

describe('the delivery log store', () => {
  it('list: deliveries newest first with their attempts, paged', async () => {
    const { db, database, queue, outbox } = openOutbox();
    const clock = new FakeClock();
    const log = createDeliveryLogStore(database.sql);
    const ws = insertWorkspace(db);
    const sub = insertSubscription(db, { workspaceId: ws });
    const [first] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    const [second] = await queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    await outbox.claimDue({ now: clock.now(), limit: 1, owner: 'w', leaseMs: 1000, perSubscriptionCap: 1 });
    await outbox.recordAttempt({ ...DEFAULT_ATTEMPT_RULES, deliveryId: first!, owner: 'w', outcome: { ok: false, statusCode: 502, durationMs: 40, error: 'receiver answered 502' }, now: clock.now() });

    const page = await log.list(sub, 1);
    expect(page).toMatchObject({ page: 1, has_more_pages: false });
    expect(page.items.map((d) => d.id)).toEqual([second, first]);
    expect(page.items[1]).toEqual({
      id: first,
      webhook_id: expect.stringMatching(/^msg_/),
      event_type: 'message:new',
      status: 'pending',
      attempts: [{ attempt_number: 1, status: 'failed', response_code: 502, duration_ms: 40, error: 'receiver answered 502', created_at: isoTime(clock.now()) }],
      next_attempt_at: isoTime(clock.now() + 5000),
      created_at: isoTime(clock.now()),
      completed_at: null,
    });
    expect(await log.list(sub, 1, 1)).toMatchObject({ has_more_pages: true, items: [{ id: second, attempts: [] }] });
    expect((await log.list(sub, 2, 1)).items.map((d) => d.id)).toEqual([first]);
    expect((await log.get(sub, first!))?.attempts).toHaveLength(1);
    expect(await log.get(sub + 1, first!)).toBeNull();
  });
});
