import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeClient, sampleMessage } from '../support/fake-client.js';
import { interrupts, runSvc, tempDir } from '../support/run-cli.js';

describe('svc send', () => {
  it('send: waits until Sent and prints uid and status', async () => {
    const client = fakeClient({ statuses: [sampleMessage({ status: 'Pending' }), sampleMessage({ status: 'Sending' }), sampleMessage()] });
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi'], { client });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('message_uid: msg_1');
    expect(run.stdout).toContain('status: Sent');
    expect(client.calls.filter((c) => c.method === 'getMessage')).toHaveLength(3);
    expect(client.calls[0]).toEqual({ method: 'sendToPhone', args: [{ phone: '+14155550123', text: 'Hi' }] });
    expect(client.closed).toBe(true);
  });

  it('send: --json prints the send data with the final status and nothing else', async () => {
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--json']);
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ message_uid: 'msg_1', status: 'Sent', chat_id: 7, credits: 1 });
    expect(run.stderr).toBe('');
  });

  it('send: --no-wait returns the accepted Pending result without polling', async () => {
    const client = fakeClient();
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--no-wait', '--json'], { client });
    expect(run.json()).toMatchObject({ status: 'Pending' });
    expect(client.calls.map((c) => c.method)).toEqual(['sendToPhone']);
  });

  it('send: a Failed message exits 1 with the reason and what to do', async () => {
    const client = fakeClient({ statuses: [sampleMessage({ status: 'Failed', failure_reason: 'invalid_number' })] });
    const run = await runSvc(['send', '--phone', '+1', '--text', 'Hi', '--json'], { client });
    expect(run.code).toBe(1);
    expect(run.json()).toMatchObject({ status: 'Failed', failure_reason: 'invalid_number' });
    const error = JSON.parse(run.stderr) as { error: { code: string; message: string; hint: string } };
    expect(error.error.code).toBe('send_failed');
    expect(error.error.message).toContain('invalid_number');
    expect(error.error.hint).toContain('international');
  });

  it('send: gives up after --wait-timeout with exit 1 and says the message stays queued', async () => {
    let now = 0;
    const client = fakeClient({ statuses: [sampleMessage({ status: 'Pending' })] });
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--wait-timeout', '1'], {
      client,
      io: { now: () => now, sleep: async (ms) => void (now += ms) },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('status: Pending');
    expect(run.stderr).toContain('still Pending after 1 s');
    expect(run.stderr).toContain('svc messages get msg_1');
  });

  it('send: Ctrl-C while waiting exits 130 and names the queued message', async () => {
    const signals = interrupts();
    const client = fakeClient({ statuses: [sampleMessage({ status: 'Pending' })] });
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi'], {
      client,
      io: { onInterrupt: signals.onInterrupt, sleep: async () => signals.fire('SIGINT') },
    });
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('svc messages get msg_1');
    expect(signals.count()).toBe(0);
  });

  it('send: --chat sends to the chat id with label, template and reply', async () => {
    const client = fakeClient();
    const run = await runSvc(
      ['send', '--chat', '7', '--text', 'Hi', '--label', 'vip', '--template', '3', '--reply-to', 'msg_0', '--no-wait'],
      { client },
    );
    expect(run.code).toBe(0);
    expect(client.calls[0]).toEqual({
      method: 'sendToChat',
      args: [7, { text: 'Hi', label: 'vip', attachment_template_id: 3, reply_to: 'msg_0' }],
    });
  });

  it('send: --chat-name warns on stderr that the endpoint is deprecated', async () => {
    const client = fakeClient();
    const run = await runSvc(['send', '--chat-name', 'Alice', '--text', 'Hi', '--json'], { client });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/deprecated.*--chat ID or --phone/);
    expect(run.json()).toMatchObject({ message_uid: 'msg_1' });
    expect(client.calls[0]).toEqual({ method: 'sendToChatName', args: [{ text: 'Hi', chat_name: 'Alice' }] });
  });

  it('send: --file uploads first with the mime type of the extension, then sends its uid', async () => {
    const dir = tempDir();
    const path = join(dir, 'photo.png');
    writeFileSync(path, 'png');
    const client = fakeClient();
    const run = await runSvc(['send', '--phone', '+14155550123', '--file', path, '--text', 'look', '--no-wait'], { client });
    expect(run.code).toBe(0);
    expect(client.calls.map((c) => c.method)).toEqual(['uploadFile', 'sendToPhone']);
    expect(client.calls[0]!.args[0]).toMatchObject({ filename: 'photo.png', mimetype: 'image/png', content: new Uint8Array(Buffer.from('png')) });
    expect(client.calls[1]!.args[0]).toEqual({ phone: '+14155550123', text: 'look', file_uid: 'file_1' });
  });

  it('send: a missing --file is a failure that names the path', async () => {
    const run = await runSvc(['send', '--phone', '+14155550123', '--file', '/nonexistent/x.pdf']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('/nonexistent/x.pdf does not exist');
  });

  it('send: --from sets the sending account', async () => {
    const client = fakeClient();
    await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--from', '+15550002', '--no-wait'], { client });
    expect(client.calls[0]!.args[0]).toEqual({ phone: '+14155550123', text: 'Hi', messenger_account_phone: '+15550002' });
  });

  it.each([
    [['send', '--phone', '+1', '--chat', '7', '--text', 'x'], 'only one of --phone, --chat and --chat-name'],
    [['send', '--text', 'x'], 'say who receives the message'],
    [['send', '--phone', '+14155550123'], 'nothing to send'],
    [['send', '--chat', '7', '--from', '+1555', '--text', 'x'], '--from'],
    [['send', '--phone', '+1', '--file', 'a', '--file-uid', 'b'], 'either --file or --file-uid'],
    [['send', '--chat', 'abc', '--text', 'x'], 'positive whole number'],
  ])('send: %j is a usage error (exit 2) without a terminal', async (argv, message) => {
    const client = fakeClient();
    const run = await runSvc(argv, { client });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stdout).toBe('');
    expect(client.calls).toEqual([]);
  });

  it('send: on a terminal, missing recipient and text are asked for', async () => {
    const client = fakeClient();
    const run = await runSvc(['send', '--no-wait'], { client, tty: true, answers: ['+14155550123', 'Hello there'] });
    expect(run.code).toBe(0);
    expect(run.questions.map((q) => q.message)).toEqual(['Recipient phone number (e.g. +14155550123):', 'Message text:']);
    expect(client.calls[0]!.args[0]).toEqual({ phone: '+14155550123', text: 'Hello there' });
  });

  it('send: a spinner is drawn on stderr only on a terminal', async () => {
    const statuses = [sampleMessage({ status: 'Pending' }), sampleMessage()];
    const onTty = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi'], { client: fakeClient({ statuses }), tty: true });
    expect(onTty.stderr).toContain('waiting for delivery');
    const piped = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi'], { client: fakeClient({ statuses }) });
    expect(piped.stderr).toBe('');
  });
});
