/**
 * `svc partner webhooks listen`: a partner developer receives partner events on a laptop, from the local
 * engine (events caused by other processes) or from a server (the SSE stream, with a fresh JWT per request).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PartnerClient } from '../../src/index.js';
import { startSandbox } from '../../src/testing/index.js';
import { ProcessSandbox } from '../support/svc-process.js';
import { bodyOf, interrupt, killListeners, listenRows, localDataDir, spawnListener, startReceiver, waitForReceived } from '../support/listen-harness.js';

const cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  killListeners();
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('svc partner webhooks listen', () => {
  it('local engine: a rotated token reaches the forwarded app, signed; Ctrl-C removes the session', async () => {
    const box = new ProcessSandbox();
    const receiver = await startReceiver();
    cleanup.push(() => box.cleanup(), () => receiver.close());
    const partner = JSON.parse((await box.ok(['admin', 'partner', 'create', '--name', 'Acme', '--json'])).stdout) as { partner_id: string; partner_secret: string };
    const env = { SVC_PARTNER_ID: partner.partner_id, SVC_PARTNER_SECRET: partner.partner_secret };

    const listener = spawnListener(box, ['partner', 'webhooks', 'listen', '--forward-to', receiver.url], 15_000, env);
    receiver.secret = await listener.ready();
    expect(listenRows(localDataDir(box))).toMatchObject({ sessions: 1, subscriptions: 6 });

    const ws = (JSON.parse((await box.ok(['partner', 'workspace', 'create', '--name', 'W', '--seats', '1', '--json'], { env })).stdout) as { workspace_id: number }).workspace_id;
    await box.ok(['partner', 'token', 'rotate', String(ws), '--yes'], { env });
    const [rotated] = await waitForReceived(receiver, 'api-token:rotated', (r) => bodyOf(r)['event_type'] === 'api-token:rotated');
    expect(rotated!.verifyError).toBeNull();
    expect(bodyOf(rotated!)).toMatchObject({ data: { workspace_id: ws } });

    const stopped = await interrupt(listener);
    expect(stopped.code).toBe(130);
    expect(listenRows(localDataDir(box))).toMatchObject({ sessions: 0, subscriptions: 0 });
  }, 60_000);

  it('server: partner events arrive on the stream of a partner session; workspace events are not among them', async () => {
    const sandbox = await startSandbox();
    cleanup.push(() => sandbox.stop());
    const client = new PartnerClient({ baseUrl: sandbox.partnerUrl, ...sandbox.partner });
    cleanup.push(() => client.close());
    const session = await client.listen.open({ events: ['workspace:quota_full'] });
    cleanup.push(() => session.close());
    expect(session.events).toEqual(['workspace:quota_full']);

    const triggered = await client.webhooks.trigger('workspace:quota_full');
    expect(triggered.deliveries).toBe(1);
    for await (const delivery of session.deliveries()) {
      expect(delivery).toMatchObject({ event_type: 'workspace:quota_full', webhook_id: triggered.webhook_id });
      expect(await session.report({ delivery_id: delivery.id, status_code: 200, duration_ms: 3, error: null })).toMatchObject({ status: 'succeeded' });
      break;
    }
    await expect(client.listen.open({ events: ['message:new'] })).rejects.toMatchObject({ code: 'validation_error' });
  });
});
