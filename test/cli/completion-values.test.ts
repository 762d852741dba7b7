import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { createPartnerClient } from '../../src/client/create-partner-client.js';
import { startSandbox, type Sandbox } from '../../src/testing/index.js';
import { BIN } from '../support/svc-process.js';
import { runSvc, tempDir } from '../support/run-cli.js';

// `svc __complete WORDS... CURRENT` completes values too: event names, webhook and chat ids, profile names,
// asked from whatever the command would target, within a second, never with an error.

const real = { createClient, createPartnerClient };

/** Candidates for `words` (the last one being typed), with the real clients. */
async function complete(words: string[], env: Record<string, string>): Promise<string[]> {
  const run = await runSvc(['__complete', ...words], { env, io: real });
  expect(run.code).toBe(0);
  expect(run.stderr).toBe('');
  return run.stdout.split('\n').filter((line) => line !== '');
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A server that accepts connections and never answers. */
async function silentServer(): Promise<string> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
}

describe('svc __complete: values', () => {
  it('event names after --event, --events, `svc trigger` and `svc partner trigger`, of the right scope', async () => {
    const env = { SVC_HOME: tempDir('svc-home-') };
    expect(await complete(['webhooks', 'create', '--event', 'chat:a'], env)).toEqual(['chat:assigned']);
    expect(await complete(['webhooks', 'update', '3', '--event', 'messenger:account:s'], env)).toEqual(['messenger:account:suspended']);
    expect(await complete(['trigger', 'message:s'], env)).toEqual(['message:sent:new']);
    expect(await complete(['partner', 'trigger', 'workspace:quota'], env)).toEqual(['workspace:quota_full', 'workspace:quota_near_full']);
    expect(await complete(['partner', 'webhooks', 'create', '--event', 'messenger_account:'], env)).toEqual([
      'messenger_account:connected',
      'messenger_account:disconnected',
    ]);
    expect(await complete(['webhooks', 'listen', '--events', 'message:new,chat:un'], env)).toEqual(['message:new,chat:unassigned']);
    // A workspace event is not offered where only partner events are accepted, and the reverse.
    expect(await complete(['partner', 'trigger', 'chat:'], env)).toEqual([]);
    // After the value, the tree again: options of the command.
    expect(await complete(['trigger', 'chat:assigned', '--js'], env)).toEqual(['--json']);
  });

  it('webhook and chat ids from the local engine; no data directory is created for a Tab press', async () => {
    const home = tempDir('svc-home-');
    const env = { SVC_HOME: home, SVC_CONFIG_DIR: tempDir('svc-conf-') };
    expect(await complete(['chats', 'get', ''], env)).toEqual([]);
    expect(existsSync(join(home, 'svc.db'))).toBe(false);

    const svc = (args: string[]) => runSvc(args, { env, io: real });
    await svc(['sim', 'connect', '--phone', '+15550001234']);
    for (const from of ['+4915112345', '+4915112346']) await svc(['sim', 'receive', '--from', from, '--to', '+15550001234', '--text', 'Hi']);
    for (const event of ['message:new', 'chat:assigned']) await svc(['webhooks', 'create', '--event', event, '--url', 'http://127.0.0.1:9/hooks']);
    expect(await complete(['chats', 'get', ''], env)).toEqual(['1', '2']);
    for (const sub of ['messages', 'assign', 'unassign']) expect(await complete(['chats', sub, ''], env)).toEqual(['1', '2']);
    expect(await complete(['send', '--chat', ''], env)).toEqual(['1', '2']);
    for (const sub of ['get', 'update', 'delete', 'deliveries', 'redeliver', 'test']) expect(await complete(['webhooks', sub, ''], env)).toEqual(['1', '2']);
    expect(await complete(['webhooks', 'delete', '2'], env)).toEqual(['2']);
    // Only the first argument is an id to complete: `redeliver ID <TAB>` wants a delivery id.
    expect(await complete(['webhooks', 'redeliver', '1', ''], env)).toEqual([]);
    // --data among the words points the lookup at another data directory.
    expect(await complete(['--data', tempDir('svc-other-'), 'chats', 'get', ''], env)).toEqual([]);
  });

  it('partner webhook ids from the partner scope', async () => {
    const env: Record<string, string> = { SVC_HOME: tempDir('svc-home-'), SVC_CONFIG_DIR: tempDir('svc-conf-') };
    const created = await runSvc(['admin', 'partner', 'create', '--name', 'Acme', '--json'], { env });
    const partner = created.json<{ partner_id: string; partner_secret: string }>();
    Object.assign(env, { SVC_PARTNER_ID: partner.partner_id, SVC_PARTNER_SECRET: partner.partner_secret });
    await runSvc(['partner', 'webhooks', 'create', '--event', 'workspace:seats_full', '--url', 'http://127.0.0.1:9/p'], { env, io: real });
    await runSvc(['webhooks', 'create', '--event', 'chat:assigned', '--url', 'http://127.0.0.1:9/w'], { env, io: real });
    await runSvc(['webhooks', 'create', '--event', 'chat:created', '--url', 'http://127.0.0.1:9/w'], { env, io: real });
    expect(await complete(['partner', 'webhooks', 'get', ''], env)).toEqual(['1']);
    expect(await complete(['webhooks', 'get', ''], env)).toEqual(['2', '3']);
  });

  it('chat ids from the server that SVC_BASE_URL names', async () => {
    const sandbox: Sandbox = await startSandbox();
    cleanups.push(() => sandbox.stop());
    await sandbox.connectAccount('+15550001001');
    await sandbox.receiveMessage({ from: '+4915112345', to: '+15550001001', text: 'Hi' });
    const env = { SVC_HOME: tempDir('svc-home-'), SVC_BASE_URL: sandbox.apiUrl, SVC_TOKEN: sandbox.workspace.token };
    // The first HTTP command of this test process pays for vitest transforming the HTTP client (over a second
    // here); the binary loads it prebuilt. Completion's budget is for the answer, so load it once first.
    expect((await runSvc(['chats', 'list'], { env, io: real })).code).toBe(0);
    expect(await complete(['chats', 'get', ''], env)).toEqual(['1']);
    // The same server named on the command line, with a token that it refuses: nothing, and no error.
    expect(await complete(['--base-url', sandbox.apiUrl, '--token', 'svc_wrong', 'chats', 'get', ''], { SVC_HOME: env.SVC_HOME })).toEqual([]);
  });

  it('profile names after --profile and for `profile use|show|delete`', async () => {
    const env = { SVC_HOME: tempDir('svc-home-'), SVC_CONFIG_DIR: tempDir('svc-conf-') };
    const client = (await import('../support/fake-client.js')).fakeClient();
    for (const name of ['staging', 'prod']) await runSvc(['login', '--profile', name, '--base-url', 'http://127.0.0.1:1/api', '--token', 't'], { env, client });
    expect(await complete(['--profile', ''], env)).toEqual(['prod', 'staging']);
    expect(await complete(['chats', 'list', '--profile', 'st'], env)).toEqual(['staging']);
    for (const sub of ['use', 'show', 'delete']) expect(await complete(['profile', sub, ''], env)).toEqual(['prod', 'staging']);
  });

  it('a server that never answers yields no candidates within about a second, and the binary exits at once', async () => {
    const url = await silentServer();
    const env = { SVC_HOME: tempDir('svc-home-'), SVC_CONFIG_DIR: tempDir('svc-conf-'), SVC_BASE_URL: url, SVC_TOKEN: 'svc_x' };
    const started = Date.now();
    expect(await complete(['chats', 'get', ''], env)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2500);

    const child = spawn(process.execPath, [BIN, '__complete', 'webhooks', 'get', ''], {
      env: { ...process.env, ...env, HOME: tempDir('svc-user-') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const spawnedAt = Date.now();
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      child.once('close', (exit) => {
        clearTimeout(timer);
        resolve(exit);
      });
    });
    expect(code).toBe(0);
    expect(output).toBe('');
    // 1 s of waiting plus Node's start-up, on a shared machine.
    expect(Date.now() - spawnedAt).toBeLessThan(4000);
  });
});
