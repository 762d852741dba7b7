import { describe, expect, it } from 'vitest';
import { countRows } from '../support/engine-fixtures.js';
import { EVENT_TYPES } from '../../src/wire/webhook-events.js';
import { fail, ok, webhookEngine } from '../support/webhook-engine.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} [+-]\d{4}$/;

describe('webhook events', () => {
  it('events: every event type reaches its subscriber exactly at its trigger', async () => {
    const t = await webhookEngine();
    const ids = new Map<number, string>();
    for (const type of EVENT_TYPES) ids.set((await t.hooks.create({ event_type: type, url: `http://localhost/${type}` })).id, type);
    const delivered = async () => {
      await t.engine.workers.runDue();
      const types = t.sender.sent.splice(0).map((r) => ids.get(r.subscriptionId));
      return types.sort();
    };
    const sent = await t.api.sendToPhone({ phone: '+4915100000001', text: 'Hi' });
    // Acceptance creates the chat; the send is processed by the same runDue, so its events come too.
    expect(await delivered()).toEqual(['chat:created', 'chat:sent:created', 'message:new', 'message:sent:new']);
    t.clock.advance(10_000);
    await t.api.sendToChat(sent.chat_id, { text: 'again' });
    expect(await delivered()).toEqual(['message:new', 'message:sent:new']);
    await t.sim.receive({ from: '+4915100000002', to: '+15550000001', text: 'Hello' });
    expect(await delivered()).toEqual(['chat:created', 'chat:received:created', 'message:new', 'message:received:new']);
    await t.api.updateChat(sent.chat_id, { responsible: 'ana@example.com' });
    expect(await delivered()).toEqual(['chat:assigned']);
    await t.api.updateChat(sent.chat_id, { responsible: '' });
    expect(await delivered()).toEqual(['chat:unassigned']);
    await t.sim.connect({ phone: '+15550000777' });
    expect(await delivered()).toEqual(['messenger:account:connected']);
    await t.sim.suspend('+15550000777');
    expect(await delivered()).toEqual(['messenger:account:suspended']);
    await t.sim.resume('+15550000777');
    expect(await delivered()).toEqual(['messenger:account:resumed']);
    await t.sim.disconnect('+15550000777');
    expect(await delivered()).toEqual(['messenger:account:disconnected']);
  });

  it('payload: message events have the SPEC 2.5 shape at the top level', async () => {
    const t = await webhookEngine();
    await t.hooks.create({ event_type: 'message:received:new', url: 'http://localhost/in' });
    const first = await t.sim.receive({ from: '+4915100000009', to: '+15550000001', text: 'first', contact_name: 'Ana' });
    await t.sim.react({ message_uid: first.message_uid, emoji: '👍' });
    await t.sim.receive({ from: '+4915100000009', to: '+15550000001', text: 'second', reply_to: first.message_uid });
    await t.engine.workers.runDue();
    const [, body] = t.sender.bodies();
    expect(Object.keys(body!).sort()).toEqual(['chat', 'event_type', 'message', 'messenger_account']);
    expect(body!.chat).toMatchObject({ full_name: 'Ana', chat_id: first.chat_id, is_group: false, phone: '+4915100000009' });
    expect(body!.chat).not.toHaveProperty('responsible_name');
    expect(body!.chat).not.toHaveProperty('responsible_email');
    expect(body!.chat.chat_url).toMatch(/\/api\/chats\/\d+$/);
    expect(body!.messenger_account).toMatchObject({ phone: '+15550000001' });
    expect(body!.message).toMatchObject({
      text: 'second', direction: 'received', origin: 'sim', reply_to_uid: first.message_uid,
      sender: { full_name: 'Ana', phone: '+4915100000009' }, recipient: { phone: '+15550000001' }, attachments: [],
    });
    expect(body!.message.timestamp).toMatch(TIMESTAMP);
    expect(body!.message.reactions).toBeUndefined();
  });

  it('payload: attachments carry a download link signed again before each attempt', async () => {
    let answers = 0;
    const t = await webhookEngine(() => (answers++ === 0 ? fail(500) : ok()));
    await t.hooks.create({ event_type: 'message:sent:new', url: 'http://localhost/out' });
    const file = await t.api.uploadFile({ filename: 'menu.pdf', mimetype: 'application/pdf', content: Buffer.from('%PDF') });
    await t.api.sendToPhone({ phone: '+4915100000003', text: 'see attached', file_uid: file.uid });
    await t.engine.workers.runDue();
    t.clock.advance(5000);
    await t.engine.workers.runDue();
    const [firstTry, retry] = t.sender.bodies();
    const links = [firstTry, retry].map((b) => b!.message.attachments[0]);
    expect(links[0]).toMatchObject({ filename: 'menu.pdf', size: 4, mimetype: 'application/pdf' });
    expect(links[1].temporary_download_url).not.toBe(links[0].temporary_download_url);
    // Valid 15 minutes from this attempt, not from the event.
    const expires = Number(new URL(links[1].temporary_download_url).searchParams.get('expires'));
    expect(expires * 1000).toBe(t.clock.now() + 15 * 60_000);
    const path = new URL(links[1].temporary_download_url);
    expect((await t.engine.download(file.uid, expires, path.searchParams.get('signature')!)).filename).toBe('menu.pdf');
  });

  it('retries: 5 s then 30 s (fake time); errors_counter only after the 3rd failed attempt; never disabled', async () => {
    const t = await webhookEngine(() => fail(500));
    const { id } = await t.hooks.create({ event_type: 'chat:assigned', url: 'http://localhost/a' });
    const chat = (await t.api.sendToPhone({ phone: '+4915100000004', text: 'x' })).chat_id;
    await t.api.updateChat(chat, { responsible: 'a@example.com' });
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(1);
    t.clock.advance(4999);
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(1);
    t.clock.advance(1);
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(2);
    expect((await t.hooks.get(id)).errors_counter).toBe(0);
    t.clock.advance(29_999);
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(2);
    t.clock.advance(1);
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(3);
    expect(await t.hooks.get(id)).toMatchObject({ errors_counter: 1, enabled: true });
    t.clock.advance(3_600_000);
    await t.engine.workers.runDue();
    expect(t.sender.sent).toHaveLength(3);
    const [delivery] = (await t.hooks.deliveries(id, 1)).items;
    expect(delivery).toMatchObject({ status: 'failed', event_type: 'chat:assigned' });
    expect(delivery!.attempts.map((a) => [a.attempt_number, a.status, a.response_code])).toEqual([[1, 'failed', 500], [2, 'failed', 500], [3, 'failed', 500]]);
    expect(new Set(t.sender.sent.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('retries: delays come from the engine config (svc serve --webhook-retry-delays)', async () => {
    const t = await webhookEngine(() => fail(503), { config: { webhookRetryDelaysMs: [1000, 2000] } });
    await t.hooks.create({ event_type: 'messenger:account:connected', url: 'http://localhost/a' });
    await t.sim.connect({ phone: '+15550000555' });
    for (const step of [0, 1000, 2000]) {
      t.clock.advance(step);
      await t.engine.workers.runDue();
    }
    expect(t.sender.sent).toHaveLength(3);
  });

  it('owner: notified once a subscription reaches the failure threshold, recorded in owner_notifications', async () => {
    const t = await webhookEngine(() => fail(500), { config: { webhookFailureNotifyThreshold: 2, webhookRetryDelaysMs: [0, 0] } });
    const { id } = await t.hooks.create({ event_type: 'message:received:new', url: 'http://localhost/a' });
    const kinds = () => t.db.prepare('SELECT kind, workspace_id, subscription_id FROM owner_notifications').all();
    for (let n = 1; n <= 3; n += 1) {
      await t.sim.receive({ from: '+4915100000005', to: '+15550000001', text: `m${n}` });
      await t.engine.workers.runDue();
      expect((await t.hooks.get(id)).errors_counter).toBe(n);
      expect(kinds()).toHaveLength(n >= 2 ? 1 : 0);
    }
    expect(kinds()).toEqual([{ kind: 'webhook_failing', workspace_id: t.local.workspace_id, subscription_id: id }]);
  });

  it('redeliver: queues the delivery again with the same webhook-id and body', async () => {
    const t = await webhookEngine();
    const { id } = await t.hooks.create({ event_type: 'message:received:new', url: 'http://localhost/a' });
    await t.sim.receive({ from: '+4915100000006', to: '+15550000001', text: 'again' });
    await t.engine.workers.runDue();
    const [first] = (await t.hooks.deliveries(id, 1)).items;
    const again = await t.hooks.redeliver(id, first!.id);
    expect(again).toMatchObject({ webhook_id: first!.webhook_id, status: 'pending' });
    await t.engine.workers.runDue();
    expect(t.sender.sent.map((r) => r.headers['webhook-id'])).toEqual([first!.webhook_id, first!.webhook_id]);
    expect(t.sender.sent[1]!.body).toBe(t.sender.sent[0]!.body);
    await expect(t.hooks.redeliver(id, 9999)).rejects.toThrow(/not found/);
  });

  it('test: a sample event of the subscription type, marked test, is delivered', async () => {
    const t = await webhookEngine();
    const { id } = await t.hooks.create({ event_type: 'message:sent:new', url: 'http://localhost/a' });
    const queued = await t.hooks.test(id);
    expect(queued).toMatchObject({ event_type: 'message:sent:new', status: 'pending' });
    await t.engine.workers.runDue();
    expect(t.sender.bodies()[0]).toMatchObject({ event_type: 'message:sent:new', test: true, message: { direction: 'sent' } });
    expect((await t.hooks.deliveries(id, 1)).items[0]).toMatchObject({ id: queued.id, status: 'succeeded' });
  });

  it('hot path: without subscriptions a send writes no delivery; a disabled one gets none either', async () => {
    const t = await webhookEngine();
    await t.hooks.create({ event_type: 'message:new', url: 'http://localhost/a', enabled: false });
    await t.api.sendToPhone({ phone: '+4915100000007', text: 'x' });
    await t.engine.workers.runDue();
    expect(countRows(t.db, 'webhook_deliveries')).toBe(0);
  });
});
