import { FakeClock } from '../../src/wire/clock.js';
import type { EngineParts } from '../../src/runtime/create-engine.js';
import type { OutgoingWebhook, SendFn } from '../../src/webhooks/delivery-worker.js';
import type { SendOutcome } from '../../src/wire/webhook-types.js';
import { testEngine } from './test-engine.js';

/** A webhook sender that records every request and answers what `answer` says (200 by default). */
export function fakeSender(answer: (request: OutgoingWebhook) => SendOutcome | Promise<SendOutcome> = () => ok(200)) {
  const sent: OutgoingWebhook[] = [];
  const send: SendFn = async (request) => {
    sent.push(request);
    return answer(request);
  };
  return { sent, send, bodies: () => sent.map((r) => JSON.parse(r.body) as Record<string, any>) };
}

export const ok = (statusCode = 200): SendOutcome => ({ ok: true, statusCode, durationMs: 1, error: null });
export const fail = (statusCode = 500): SendOutcome => ({ ok: false, statusCode, durationMs: 1, error: `HTTP ${statusCode}` });

/** A test engine (fake clock, in-memory) whose webhooks go to a fake sender; dev mode so http URLs pass. */
export async function webhookEngine(answer?: Parameters<typeof fakeSender>[0], parts: Partial<EngineParts> & { clock?: FakeClock } = {}) {
  const sender = fakeSender(answer);
  const t = await testEngine({ webhookSend: sender.send, ...parts, config: { dev: true, ...parts.config } });
  const hooks = t.engine.webhooks(t.local.workspace_id);
  return { ...t, sender, hooks };
}
