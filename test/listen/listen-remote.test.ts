/**
 * `svc webhooks listen --base-url ... --token ...` against a `svc serve` child on 127.0.0.1 (port 0): deliveries
 * come down the SSE stream, results go back, a dropped stream is reopened without losing an event.
 * Needs `npm run build` (npm test does it).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessSandbox, api, pollUntil, type SvcServer } from '../support/svc-process.js';
import {
  bodyOf,
  interrupt,
  killListeners,
  listenerSubscriptionState,
  listenRows,
  messageUidOf,
  spawnListener,
  startReceiver,
  waitForReceived,
  type Receiver,
} from '../support/listen-harness.js';

describe('svc webhooks listen (remote server)', () => {
  let box: ProcessSandbox;
  let receiver: Receiver;
  let dataDir: string;
  let token: string;

  beforeEach(async () => {
    box = new ProcessSandbox();
    receiver = await startReceiver();
    dataDir = box.tempDir('svc-listen-remote-');
    ({ token } = await box.createWorkspace(dataDir, 'Listen'));
  });
  afterEach(async () => {
    killListeners();
    await receiver.close();
    await box.cleanup();
  });

  const remote = (server: SvcServer) => ['--base-url', `${server.url}/api`, '--token', token];
  const serve = (port = '0') => box.serve(dataDir, { args: ['--dev', '--webhook-retry-delays', '1,1', '--port', port] });

  it('listen: deliveries arrive over the stream; a 500 is retried with the server\'s delays; Ctrl-C removes the session', async () => {
    const server = await serve();
    await box.ok(['sim', 'connect', '--phone', '+15550001', ...remote(server)]);
    const failFirst = new Map<string, number>();
    // Fails the first two attempts of message:received:new, then accepts: three attempts, then success.
    receiver.answer = (body) => {
      const type = JSON.parse(body).event_type as string;
      const n = (failFirst.get(type) ?? 0) + 1;
      failFirst.set(type, n);
      return type === 'message:received:new' && n <= 2 ? 500 : 200;
    };
    const listener = spawnListener(box, ['webhooks', 'listen', ...remote(server), '--forward-to', receiver.url, '--events', 'message:received:new,chat:created']);
    receiver.secret = await listener.ready();
    expect(listenRows(dataDir)).toMatchObject({ sessions: 1, subscriptions: 2 });

    const sent = (await box.ok(['sim', 'receive', '--from', '+4915112345', '--to', '+15550001', '--text', 'Hi', '--json', ...remote(server)])).stdout;
    const uid = (JSON.parse(sent) as { message_uid: string }).message_uid;
    const attempts = await waitForReceived(receiver, 'three attempts', (r) => bodyOf(r)['event_type'] === 'message:received:new', 3);
    expect(attempts.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(attempts.map(messageUidOf)).toEqual([uid, uid, uid]);
    await waitForReceived(receiver, 'chat:created', (r) => bodyOf(r)['event_type'] === 'chat:created');
    expect(receiver.received.every((r) => r.verifyError === null)).toBe(true);
    await pollUntil(
      'the result of the last attempt',
      async () => (listenerSubscriptionState(dataDir, 'message:received:new')?.attempts.length === 3 ? true : undefined),
      { timeoutMs: 10_000 },
    );
    expect(listenerSubscriptionState(dataDir, 'message:received:new')).toEqual({ errors_counter: 0, attempts: [500, 500, 200] });
    expect(listener.stdout()).toMatch(/^<-- \[500\] POST \S+ \(\d+ ms\) receiver answered 500; attempt 2 of 3 in /m);

    expect((await interrupt(listener)).code).toBe(130);
    expect(listenRows(dataDir)).toEqual({ sessions: 0, subscriptions: 0, deliveries: 0 });
    // Listener subscriptions never showed in the workspace's own list either.
    const list = await api<{ data: { items: unknown[] } }>(server, token, 'GET', '/api/webhooks');
    expect(list.body.data.items).toEqual([]);
    await box.stop(server);
  });

  it('listen: the server is killed while events are pending; the listener says it reconnects and every event arrives', async () => {
    let server = await serve();
    const port = new URL(server.url).port;
    await box.ok(['sim', 'connect', '--phone', '+15550001', ...remote(server)]);
    const listener = spawnListener(box, ['webhooks', 'listen', ...remote(server), '--forward-to', receiver.url, '--events', 'message:received:new']);
    receiver.secret = await listener.ready();
    await box.ok(['sim', 'receive', '--from', '+4915110000', '--to', '+15550001', '--text', 'before', ...remote(server)]);
    await waitForReceived(receiver, 'the first event', () => true);

    server.child.kill('SIGKILL');
    await server.exited;
    await pollUntil('a reconnect notice', async () => (/reconnecting in \d+(\.\d)?s\.\.\./.test(listener.stderr()) ? true : undefined), {
      timeoutMs: 10_000,
    });
    // While the server is down, other processes write events into its data directory (the embedded engine).
    const uids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const run = await box.ok(['sim', 'receive', '--from', `+491511000${i}`, '--to', '+15550001', '--text', `while down ${i}`, '--json',
        '--data', dataDir, '--token', token]);
      uids.push((JSON.parse(run.stdout) as { message_uid: string }).message_uid);
    }
    expect(listenRows(dataDir).deliveries).toBeGreaterThanOrEqual(6);

    server = await serve(port);
    const all = await waitForReceived(receiver, 'every event written while the server was down', (r) => uids.includes(messageUidOf(r) ?? ''), 5, 30_000);
    expect(new Set(all.map(messageUidOf))).toEqual(new Set(uids));
    expect(receiver.received.every((r) => r.verifyError === null)).toBe(true);
    await pollUntil('a reconnected notice', async () => (/^reconnected$/m.test(listener.stderr()) ? true : undefined), { timeoutMs: 5_000 });
    expect((await interrupt(listener)).code).toBe(130);
    expect(listenRows(dataDir)).toEqual({ sessions: 0, subscriptions: 0, deliveries: 0 });
    await box.stop(server);
  });
});
