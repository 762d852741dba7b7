/**
 * Issue 3, "Shown by": kill `svc serve` (SIGKILL) between acceptance and delivery; after a restart every event
 * is delivered at least once. The receiver answers slowly, so at the kill some deliveries are in flight (leased),
 * some pending, and some sends not yet dispatched; each kind must still arrive after the restart.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/webhook-helpers.js';
import { api, pollUntil, ProcessSandbox } from '../support/svc-process.js';

const MESSAGES = 24;

describe('process: kill the server between acceptance and webhook delivery', () => {
  let box: ProcessSandbox;
  let rx: Receiver | undefined;
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(async () => {
    await rx?.close();
    await box.cleanup();
  });

  it('every event is delivered at least once after SIGKILL and restart', { timeout: 90_000 }, async () => {
    rx = await startReceiver((_req, res) => setTimeout(() => res.end('ok'), 150));
    const dataDir = box.tempDir('svc-proc-hooks-');
    const { workspace_id: ws, token } = await box.createWorkspace(dataDir, 'Kill webhooks', 1000);
    await box.ok(['admin', 'workspace', 'update', String(ws), '--data', dataDir, '--plan', 'business', '--send-interval', '50']);
    const env = { SVC_SEND_LEASE_MS: '1000' };
    let server = await box.serve(dataDir, { env, args: ['--dev'] });
    expect((await api(server, token, 'POST', '/sim/accounts/connect', { phone: '+15550002001' })).status).toBe(200);
    for (const event_type of ['message:sent:new', 'chat:created']) {
      const res = await api(server, token, 'POST', '/api/webhooks', { event_type, url: `${rx.url}/${event_type}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }

    const accepted = await Promise.all(
      Array.from({ length: MESSAGES }, (_, i) =>
        api<{ data: { message_uid: string; chat_id: number } }>(server, token, 'POST', '/api/messages', {
          phone: `+1415556${String(1000 + i).padStart(4, '0')}`,
          text: `m${i}`,
        }),
      ),
    );
    for (const res of accepted) expect(res.status).toBe(200);
    // Let a few get dispatched and delivered, so the kill lands in the middle of things.
    await new Promise((r) => setTimeout(r, 400));
    await box.stop(server, 'SIGKILL');
    const beforeRestart = rx.requests.length;

    server = await box.serve(dataDir, { env, args: ['--dev'] });
    const expected = new Set(accepted.flatMap(({ body }) => [`message:sent:new ${body.data.message_uid}`, `chat:created ${body.data.chat_id}`]));
    const seen = () => {
      const keys = new Set(
        rx!.requests.map((r) => {
          const body = JSON.parse(r.body) as { event_type: string; chat: { chat_id: number }; message?: { message_uid: string } };
          return `${body.event_type} ${body.event_type === 'chat:created' ? body.chat.chat_id : body.message?.message_uid}`;
        }),
      );
      return [...expected].filter((key) => !keys.has(key));
    };
    await pollUntil('every event delivered', async () => (seen().length === 0 ? true : undefined), { timeoutMs: 60_000 });
    expect(beforeRestart).toBeLessThan(expected.size);
    await box.stop(server, 'SIGTERM');
  });
});
