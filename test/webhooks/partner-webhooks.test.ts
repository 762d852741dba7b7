import { jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { partnerSubscriptions } from '../../src/engine/webhooks/subscriptions.js';
import { expectSvcError } from '../support/engine-fixtures.js';
import { webhookEngine } from '../support/webhook-engine.js';

describe('partner webhooks', () => {
  it('partner: its subscriptions get partner events with X-SVC-Partner-Id and a verifiable X-SVC-Signature', async () => {
    const t = await webhookEngine();
    const partner = await t.engine.admin.createPartner({ name: 'Acme' });
    const row = (await t.engine.context.stores.partners.byPublicId(partner.partner_id))!;
    const hooks = partnerSubscriptions(t.engine.context, row.id);
    await expectSvcError(() => hooks.create({ event_type: 'message:new', url: 'http://localhost/p' }), 'validation_error');
    const sub = await hooks.create({ event_type: 'messenger_account:connected', url: 'http://localhost/p' });
    // A workspace token cannot see partner subscriptions, nor a partner a workspace's.
    await expectSvcError(() => t.hooks.get(sub.id), 'not_found');
    const workspace = await t.engine.partner(partner.partner_id).createWorkspace({ display_name: 'Shop', seats_purchased: 2 });
    await t.engine.sim(workspace.workspace_id).connect({ phone: '+15550000888' });
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(1);
    const [request] = t.sender.sent;
    expect(request!.headers['X-SVC-Partner-Id']).toBe(partner.partner_id);
    const { payload } = await jwtVerify(request!.headers['X-SVC-Signature']!, new TextEncoder().encode(partner.partner_secret), {
      currentDate: new Date(t.clock.now()),
    });
    expect(payload.partner_id).toBe(partner.partner_id);
    expect(JSON.parse(request!.body)).toMatchObject({ event_type: 'messenger_account:connected', data: { phone: '+15550000888', workspace_id: workspace.workspace_id } });
    expect((await hooks.deliveries(sub.id, 1)).items[0]).toMatchObject({ status: 'succeeded' });
  });
});
