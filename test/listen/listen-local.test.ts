/**
 * `svc webhooks listen` on the local embedded engine, as a child process, while other `svc` processes on the
 * same data directory cause the events: only the database connects them. Needs `npm run build` (npm test does it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessSandbox, pollUntil } from '../support/svc-process.js';
import {
  bodyOf,
  interrupt,
  killListeners,
  listenerSubscriptionState,
  listenRows,
  localDataDir,
  messageUidOf,
  spawnListener,
  startReceiver,
  waitForReceived,
  type Receiver,
} from '../support/listen-harness.js';

describe('svc webhooks listen (local engine)', () => {
  let box: ProcessSandbox;
  let receiver: Receiver;

  beforeEach(async () => {
    box = new ProcessSandbox();
    receiver = await startReceiver();
  });
  afterEach(async () => {
    killListeners();
    await receiver.close();
    await box.cleanup();
  });

  it('listen: forwards events written by other processes, signed so standardwebhooks verifies them; Ctrl-C removes the session', async () => {
    await box.ok(['sim', 'connect', '--phone', '+15550001']);
    const listener = spawnListener(box, ['webhooks', 'listen', '--forward-to', receiver.url, '--headers', 'X-Team: blue']);
    receiver.secret = await listener.ready();
    expect(listenRows(localDataDir(box))).toMatchObject({ sessions: 1, subscriptions: 12 });

    const received = JSON.parse((await box.ok(['sim', 'receive', '--from', '+4915112345', '--to', '+15550001', '--text', 'Hi', '--json'])).stdout) as {
      message_uid: string;
    };
    const sent = JSON.parse((await box.ok(['send', '--phone', '+4915112345', '--text', 'Hello back', '--json'])).stdout) as { message_uid: string };

    const incoming = await waitForReceived(receiver, 'message:received:new', (r) => bodyOf(r)['event_type'] === 'message:received:new');
    const outgoing = await waitForReceived(receiver, 'message:sent:new', (r) => bodyOf(r)['event_type'] === 'message:sent:new');
    expect(messageUidOf(incoming[0]!)).toBe(received.message_uid);
    expect(messageUidOf(outgoing[0]!)).toBe(sent.message_uid);
    await waitForReceived(receiver, 'chat:received:created', (r) => bodyOf(r)['event_type'] === 'chat:received:created');
    for (const r of receiver.received) {
      expect(r.verifyError).toBeNull();
      expect(r.headers['x-team']).toBe('blue');
    }

    const out = await pollUntil('the forward line of message:sent:new', async () => {
      const text = listener.stdout();
      return text.includes(`message_uid ${sent.message_uid}`) && (text.match(/^<-- \[200\] POST /gm) ?? []).length >= receiver.received.length
        ? text
        : undefined;
    }, { timeoutMs: 10_000 });
    expect(out).toMatch(new RegExp(`^--> message:received:new \\[msg_[0-9a-f]+\\] message_uid ${received.message_uid}$`, 'm'));
    expect(out).toMatch(new RegExp(`^<-- \\[200\\] POST ${receiver.url.replace(/[/.]/g, '\\$&')} \\(\\d+ ms\\)$`, 'm'));

    const run = await interrupt(listener);
    expect(run.code).toBe(130);
    expect(listenRows(localDataDir(box))).toEqual({ sessions: 0, subscriptions: 0, deliveries: 0 });
  });

  it('listen: a 500 from the local app is a failed attempt, retried after the configured delays, then counted in errors_counter', async () => {
    await box.ok(['sim', 'connect', '--phone', '+15550001']);
    receiver.answer = () => 500;
    const listener = spawnListener(box, [
      'webhooks', 'listen', '--forward-to', receiver.url, '--events', 'message:received:new', '--retry-delays', '0.5,0.5',
    ]);
    receiver.secret = await listener.ready();
    await box.ok(['sim', 'receive', '--from', '+4915112345', '--to', '+15550001', '--text', 'Hi']);

    const attempts = await waitForReceived(receiver, 'three attempts', () => true, 3);
    expect(new Set(attempts.map((r) => r.headers['webhook-id'])).size).toBe(1); // a retry keeps its webhook-id
    expect(attempts.every((r) => r.verifyError === null)).toBe(true);
    await pollUntil('the last attempt to be recorded', async () => (/failed after 3 attempts/.test(listener.stdout()) ? true : undefined), {
      timeoutMs: 10_000,
    });
    expect(listener.stdout()).toMatch(/^--> message:received:new .*\(attempt 3 of 3\)$/m);
    expect(listenerSubscriptionState(localDataDir(box), 'message:received:new')).toEqual({ errors_counter: 1, attempts: [500, 500, 500] });
    // Three attempts in all: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(receiver.received).toHaveLength(3);
    expect((await interrupt(listener)).code).toBe(130);
  });

  it('listen --json: one JSON object per line; --print-secret prints the secret the Ready line shows', async () => {
    const printed = (await box.ok(['webhooks', 'listen', '--print-secret'])).stdout.trim();
    expect(printed).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const listener = spawnListener(box, ['--json', 'webhooks', 'listen', '--forward-to', receiver.url, '--events', 'messenger:account:connected']);
    const lines = () => listener.stdout().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    const ready = await pollUntil('the ready object', async () => lines().find((l) => l['type'] === 'ready'), { timeoutMs: 15_000 });
    expect(ready).toMatchObject({ secret: printed, events: ['messenger:account:connected'], forward_to: receiver.url });
    receiver.secret = printed;

    await box.ok(['sim', 'connect', '--phone', '+15550009']);
    const forward = await pollUntil('the forward object', async () => lines().find((l) => l['type'] === 'forward'), { timeoutMs: 10_000 });
    expect(forward).toMatchObject({ status_code: 200, url: receiver.url, result: 'succeeded', error: null });
    expect(lines().find((l) => l['type'] === 'event')).toMatchObject({ event_type: 'messenger:account:connected', id: '+15550009', id_kind: 'phone' });
    expect(receiver.received[0]!.verifyError).toBeNull();
    expect((await interrupt(listener)).code).toBe(130);
  });
});
