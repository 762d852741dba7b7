/**
 * Webhook cases of the contract suite: the same calls through the local client and the HTTP client must give
 * the same answers. Both targets run in dev mode, so the receiver on 127.0.0.1 is an allowed URL.
 */
import { expect, it } from 'vitest';
import { expectCode, waitForStatus, type ContractTarget } from '../contract/contract-target.js';
import { startReceiver } from '../support/webhook-helpers.js';

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 8000): Promise<void> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Registers the webhook cases against `target()`. */
export function webhookCases(target: () => ContractTarget): void {
  it('webhooks: create, get, list, partial update, secret, delete', async () => {
    const { client } = await target().workspace();
    const created = await client.webhooks.create({ event_type: 'message:new', url: 'http://127.0.0.1:9/a' });
    expect(created).toEqual({ id: created.id, event_type: 'message:new', enabled: true, url: 'http://127.0.0.1:9/a', errors_counter: 0, secret: created.secret });
    expect(created.secret).toMatch(/^whsec_/);
    const { secret: _secret, ...record } = created;
    expect(await client.webhooks.get(created.id)).toEqual(record);
    expect(await client.webhooks.list()).toEqual({ items: [record], page: 1, has_more_pages: false });
    expect(await client.webhooks.update(created.id, { enabled: false })).toEqual({ ...record, enabled: false });
    expect(await client.webhooks.update(created.id, { url: 'http://127.0.0.1:9/b' })).toEqual({ ...record, enabled: false, url: 'http://127.0.0.1:9/b' });
    expect(await client.webhooks.secret(created.id)).toEqual({ id: created.id, secret: created.secret });
    expect(await client.webhooks.delete(created.id)).toEqual({ deleted: true, id: created.id });
    await expectCode(client.webhooks.get(created.id), 'not_found');
    expect((await client.webhooks.list(2)).items).toEqual([]);
  });

  it('webhooks: invalid input is a validation error; the 21st subscription a conflict', async () => {
    const { client } = await target().workspace();
    await expectCode(client.webhooks.create({ event_type: 'nope', url: 'http://127.0.0.1/a' }), 'validation_error');
    await expectCode(client.webhooks.create({ event_type: 'message:new', url: 'not a url' }), 'validation_error');
    const { id } = await client.webhooks.create({ event_type: 'message:new', url: 'http://127.0.0.1:9/0' });
    await expectCode(client.webhooks.update(id, { event_type: 'nope' }), 'validation_error');
    for (let n = 1; n < 20; n += 1) await client.webhooks.create({ event_type: 'chat:created', url: `http://127.0.0.1:9/${n}` });
    await expectCode(client.webhooks.create({ event_type: 'chat:created', url: 'http://127.0.0.1:9/21' }), 'conflict');
  });

  it('webhooks: another workspace gets not_found for every operation', async () => {
    const mine = await target().workspace();
    const other = await target().workspace();
    const { id } = await mine.client.webhooks.create({ event_type: 'message:new', url: 'http://127.0.0.1:9/a' });
    // One call at a time: promises made all at once would reject before the loop got to await them.
    const hooks = other.client.webhooks;
    for (const call of [() => hooks.get(id), () => hooks.secret(id), () => hooks.delete(id), () => hooks.update(id, { enabled: false }),
      () => hooks.deliveries(id), () => hooks.test(id)]) {
      await expectCode(call(), 'not_found');
    }
    expect((await other.client.webhooks.list()).items).toEqual([]);
  });

  it('webhooks: a send reaches the subscriber; test event and redelivery keep their webhook-id', async () => {
    const rx = await startReceiver();
    try {
      const ws = await target().workspace();
      const hook = await ws.client.webhooks.create({ event_type: 'message:sent:new', url: `${rx.url}/hook` });
      const sent = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'hello' });
      await waitForStatus(ws.client, sent.message_uid, 'Sent');
      await until(() => rx.requests.length === 1);
      expect(JSON.parse(rx.requests[0]!.body).message.message_uid).toBe(sent.message_uid);
      const test = await ws.client.webhooks.test(hook.id);
      expect(test).toMatchObject({ event_type: 'message:sent:new', status: 'pending', attempts: [] });
      await until(() => rx.requests.length === 2);
      const redelivered = await ws.client.webhooks.redeliver(hook.id, test.id);
      expect(redelivered.webhook_id).toBe(test.webhook_id);
      await until(() => rx.requests.length === 3);
      expect(rx.requests[2]!.headers['webhook-id']).toBe(test.webhook_id);
      await until(async () => (await ws.client.webhooks.deliveries(hook.id)).items.every((d) => d.status === 'succeeded'));
      const log = await ws.client.webhooks.deliveries(hook.id);
      expect(log.items.map((d) => d.attempts.map((a) => [a.attempt_number, a.status, a.response_code]))).toEqual([
        [[1, 'succeeded', 200]], [[1, 'succeeded', 200]], [[1, 'succeeded', 200]],
      ]);
      await expectCode(ws.client.webhooks.redeliver(hook.id, 999_999), 'not_found');
    } finally {
      await rx.close();
    }
  });
}
