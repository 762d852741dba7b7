/** `svc trigger` / `POST /webhooks/trigger`: a sample event through the real signed delivery path. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerClient, SvcClient, verifyPartnerWebhook } from '../../src/index.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function sandbox(): Promise<Sandbox> {
  const s = await startSandbox();
  cleanup.push(() => s.stop());
  return s;
}

/** A receiver in this process that hands over the first POST it gets. */
async function oneShotReceiver(): Promise<{ url: string; received: Promise<{ headers: IncomingHttpHeaders; body: string }> }> {
  let deliver!: (value: { headers: IncomingHttpHeaders; body: string }) => void;
  const received = new Promise<{ headers: IncomingHttpHeaders; body: string }>((resolve) => (deliver = resolve));
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      res.end('ok');
      deliver({ headers: req.headers, body });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/partner-hooks`, received };
}

describe('trigger', () => {
  it('a workspace event reaches its subscription and a listen session, signed, with one webhook-id', async () => {
    const s = await sandbox();
    const client = new SvcClient({ baseUrl: s.apiUrl, token: s.workspace.token });
    cleanup.push(() => client.close());
    const arrival = s.nextDelivery({ event: 'chat:assigned' });
    const session = await client.listen.open({ events: ['chat:assigned'] });
    cleanup.push(() => session.close());

    const triggered = await client.webhooks.trigger('chat:assigned');
    expect(triggered).toMatchObject({ event_type: 'chat:assigned', deliveries: 2 });
    const delivery = await arrival; // nextDelivery verified the Standard Webhooks signature
    expect(delivery.headers['webhook-id']).toBe(triggered.webhook_id);
    expect(delivery.payload).toMatchObject({ test: true });
    for await (const handed of session.deliveries()) {
      expect(handed).toMatchObject({ event_type: 'chat:assigned' });
      break;
    }
  });

  it('nobody subscribed: nothing is queued; an unknown event is a 400 validation error', async () => {
    const s = await sandbox();
    const client = new SvcClient({ baseUrl: s.apiUrl, token: s.workspace.token });
    cleanup.push(() => client.close());
    expect(await client.webhooks.trigger('message:new')).toEqual({ event_type: 'message:new', webhook_id: null, deliveries: 0 });
    await expect(client.webhooks.trigger('message:nwe')).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('a partner event reaches the partner subscription with its partner signature', async () => {
    const s = await sandbox();
    const receiver = await oneShotReceiver();
    const partner = new PartnerClient({ baseUrl: s.partnerUrl, ...s.partner });
    cleanup.push(() => partner.close());
    await partner.webhooks.create({ event_type: 'workspace:quota_full', url: receiver.url });
    const triggered = await partner.webhooks.trigger('workspace:quota_full');
    expect(triggered.deliveries).toBe(1);
    const { headers, body } = await receiver.received;
    await verifyPartnerWebhook({ partnerSecret: s.partner.partnerSecret, partnerId: s.partner.partnerId, headers, body });
    expect(JSON.parse(body)).toMatchObject({ test: true });
  });
});
