import { describe, expect, it } from 'vitest';
import { FakeClock, isoTime } from '../../src/engine/clock.js';
import { DeliveryLog } from '../../src/webhooks/delivery-log.js';
import { DeliveryQueue } from '../../src/webhooks/delivery-queue.js';
import { insertSubscription, insertWorkspace, openWebhooksDb } from './helpers.js';

describe('DeliveryLog', () => {
  it('list: deliveries newest first with their attempts, paged', () => {
    const db = openWebhooksDb();
    const clock = new FakeClock();
    const queue = new DeliveryQueue(db);
    const log = new DeliveryLog(db);
    const ws = insertWorkspace(db);
    const sub = insertSubscription(db, { workspaceId: ws });
    const [first] = queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    const [second] = queue.enqueueEvent({ workspaceId: ws, eventType: 'message:new', payload: {}, now: clock.now() });
    queue.claimDue({ now: clock.now(), limit: 1, owner: 'w', leaseMs: 1000, perSubscriptionCap: 1 });
    queue.recordAttempt({ deliveryId: first!, owner: 'w', outcome: { ok: false, statusCode: 502, durationMs: 40, error: 'receiver answered 502' }, now: clock.now() });

    const page = log.list(sub, 1);
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
    expect(log.list(sub, 1, 1)).toMatchObject({ has_more_pages: true, items: [{ id: second, attempts: [] }] });
    expect(log.list(sub, 2, 1).items.map((d) => d.id)).toEqual([first]);
    expect(log.get(sub, first!)?.attempts).toHaveLength(1);
    expect(log.get(sub + 1, first!)).toBeNull();
  });
});
