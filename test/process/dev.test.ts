/**
 * `svc dev`, spawned as a developer runs it: it serves, prints the base URL and a token, and forwards every
 * event of that workspace to the app; a request made with what it printed reaches the app as a signed
 * delivery, and Ctrl-C takes down what it started (listen session, server) and exits 130.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bodyOf, interrupt, killListeners, listenRows, spawnListener, startReceiver, waitForReceived, type Receiver } from '../support/listen-harness.js';
import { pollUntil, ProcessSandbox } from '../support/svc-process.js';

describe('svc dev (spawned)', () => {
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

  it('prints URL, token and export line; a send through them reaches the app signed; Ctrl-C removes the session and the server', { timeout: 60_000 }, async () => {
    const dataDir = box.tempDir('svc-proc-dev-');
    const dev = spawnListener(box, ['dev', '--port', '0', '--data', dataDir, '--forward-to', receiver.url]);
    receiver.secret = await dev.ready();
    const out = dev.stdout();
    const origin = /^listening on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(out)?.[1];
    const exported = /^ {2}export SVC_BASE_URL=(\S+) SVC_TOKEN=(svc_\S+)$/m.exec(out);
    expect(origin, out).toBeDefined();
    expect(exported?.[1]).toBe(`${origin}/api`);
    const token = exported![2]!;
    expect(out).toContain(`  Token        ${token}`);
    expect(out).toMatch(/^ {2}Workspace {4}Local \(1\), sending from the simulated account \+\d+$/m);
    expect(out).toContain(`Forwarding every event to ${receiver.url}`);
    expect(listenRows(dataDir).sessions).toBe(1);

    // What it printed works: a send over HTTP with the token, and svc itself with the two variables.
    const sent = await fetch(`${origin}/api/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ phone: '+14155550123', text: 'Hello from svc dev' }),
    });
    expect(sent.status).toBe(200);
    const uid = ((await sent.json()) as { data: { message_uid: string } }).data.message_uid;
    const env = { SVC_BASE_URL: exported![1]!, SVC_TOKEN: token, SVC_HOME: box.tempDir('svc-proc-elsewhere-') };
    expect(JSON.parse((await box.ok(['messages', 'get', uid, '--json'], { env })).stdout)).toMatchObject({ uid });

    const [delivery] = await waitForReceived(receiver, 'message:sent:new', (r) => bodyOf(r)['event_type'] === 'message:sent:new');
    expect(delivery!.verifyError).toBeNull();
    expect((bodyOf(delivery!)['message'] as { message_uid: string }).message_uid).toBe(uid);
    await pollUntil('the forward lines', async () => (/^<-- \[200\] POST /m.test(dev.stdout()) ? true : undefined), { timeoutMs: 10_000 });
    expect(dev.stdout()).toMatch(new RegExp(`^--> message:sent:new \\[msg_[0-9a-f]+\\] message_uid ${uid}$`, 'm'));

    const run = await interrupt(dev);
    expect(run.code).toBe(130);
    expect(listenRows(dataDir)).toEqual({ sessions: 0, subscriptions: 0, deliveries: 0 });
    await expect(fetch(`${origin}/healthz`)).rejects.toThrow();
    // The workspace stays: the next run serves the same one, so the token printed today still works.
    const again = spawnListener(box, ['dev', '--port', '0', '--data', dataDir]);
    await again.ready();
    expect(again.stdout()).toContain(`  Token        ${token}`);
    expect((await interrupt(again)).code).toBe(130);
  });

  it('--json prints one ready object with URL, token and workspace, then one object per event; SIGTERM exits 0', { timeout: 60_000 }, async () => {
    const dataDir = box.tempDir('svc-proc-dev-');
    const dev = spawnListener(box, ['dev', '--port', '0', '--data', dataDir, '--json', '--events', 'chat:assigned']);
    await dev.ready();
    const lines = () => dev.stdout().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    const ready = lines()[0]!;
    expect(ready).toMatchObject({ type: 'ready', workspace: { id: 1, name: 'Local' }, events: ['chat:assigned'], forward_to: null });
    expect(ready['url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready['base_url']).toBe(`${ready['url'] as string}/api`);
    expect(ready['token']).toMatch(/^svc_/);

    await box.ok(['trigger', 'chat:assigned', '--base-url', ready['base_url'] as string, '--token', ready['token'] as string]);
    const event = await pollUntil('the event object', async () => lines().find((l) => l['type'] === 'event'), { timeoutMs: 10_000 });
    expect(event).toMatchObject({ event_type: 'chat:assigned' });

    dev.child.kill('SIGTERM');
    expect((await dev.exited).code).toBe(0);
    expect(listenRows(dataDir).sessions).toBe(0);
  });
});
