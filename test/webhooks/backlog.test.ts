import { describe, expect, it } from 'vitest';
import { checkWebhookBacklog } from '../../src/engine/webhooks/backlog.js';
import { noMetrics } from '../../src/engine/engine-metrics.js';
import { renderOwnerMail } from '../../src/workers/owner-mail-text.js';
import { testEngine } from '../support/test-engine.js';

describe('webhook backlog bound', () => {
  it('passing the bound logs once, records one owner notice and counts in the metric; catching up re-arms it', async () => {
    const logged: string[] = [];
    const reported: number[] = [];
    const t = await testEngine({
      logger: { info: () => undefined, error: (line) => void logged.push(line) },
      metrics: { ...noMetrics, webhookBacklog: (n) => void reported.push(n) },
    });
    const ws = t.local.workspace_id;
    const sub = await t.engine.webhooks(ws).create({ event_type: 'message:new', url: 'https://hooks.example.com/slow' });
    const { deliveries } = t.engine.context.stores;
    const enqueue = async (n: number) => {
      for (let i = 0; i < n; i += 1) await deliveries.enqueue({ subscriptionId: sub.id, eventType: 'message:new', payload: { i }, now: t.clock.now() });
    };
    const notices = () => t.db.prepare(`SELECT * FROM owner_notifications WHERE kind = 'webhook_backlog'`).all() as Array<{ details: string; subscription_id: number }>;

    await enqueue(10);
    expect(await checkWebhookBacklog(t.engine.context, 10)).toBe(0);
    await enqueue(1);
    t.clock.advance(30_000);
    expect(await checkWebhookBacklog(t.engine.context, 10)).toBe(1);
    expect(await checkWebhookBacklog(t.engine.context, 10)).toBe(1);
    expect(notices()).toHaveLength(1);
    expect(JSON.parse(notices()[0]!.details)).toMatchObject({ pending: 11, bound: 10, oldest_age_sec: 30, url: 'https://hooks.example.com/slow' });
    expect(logged).toEqual([`webhook backlog: workspace:${ws} has 11 deliveries queued (bound 10), the oldest 30 s old`]);
    expect(reported).toEqual([0, 1, 1]);

    // Drained below half the bound: the next crossing notifies again.
    t.db.prepare(`UPDATE webhook_deliveries SET status = 'succeeded', completed_at = 1 WHERE id IN (SELECT id FROM webhook_deliveries LIMIT 8)`).run();
    expect(await checkWebhookBacklog(t.engine.context, 10)).toBe(0);
    await enqueue(10);
    expect(await checkWebhookBacklog(t.engine.context, 10)).toBe(1);
    expect(notices()).toHaveLength(2);
  });

  it('the owner e-mail of a backlog says what is queued and what to do, without the secret', () => {
    const mail = renderOwnerMail({
      id: 1, kind: 'webhook_backlog', createdAt: 0, subscriptionId: 7, workspaceId: 3, partnerId: null, ownerName: 'Acme',
      recipient: 'ops@example.com', mailAttempts: 0,
      details: JSON.stringify({ pending: 1500, bound: 1000, oldest_age_sec: 42, url: 'https://hooks.example.com/x?token=abc', subscription_pending: 1400 }),
    });
    expect(mail.subject).toBe('[svc] Webhook deliveries are falling behind: 1500 queued');
    expect(mail.text).toContain('Queued now:        1500 deliveries (the bound is 1000)');
    expect(mail.text).toContain('subscription 7, https://hooks.example.com/x (query string not shown)');
    expect(mail.text).not.toContain('token=abc');
  });
});
