import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeClient } from '../support/fake-client.js';
import { runSvc, tempDir } from '../support/run-cli.js';

describe('resource commands', () => {
  it('messages get: prints the message with its status', async () => {
    const client = fakeClient();
    const run = await runSvc(['messages', 'get', 'msg_1', '--json'], { client });
    expect(run.json()).toMatchObject({ uid: 'msg_1', status: 'Sent' });
    expect(client.calls).toEqual([{ method: 'getMessage', args: ['msg_1'] }]);
  });

  it('chats: list pages, get, messages, assign and unassign call the client', async () => {
    const client = fakeClient();
    for (const argv of [
      ['chats', 'list', '--page', '2'],
      ['chats', 'get', '7'],
      ['chats', 'messages', '7', '--page', '3'],
      ['chats', 'assign', '7', '--to', 'bob@example.com'],
      ['chats', 'unassign', '7'],
    ]) {
      expect((await runSvc(argv, { client })).code).toBe(0);
    }
    expect(client.calls).toEqual([
      { method: 'listChats', args: [2] },
      { method: 'getChat', args: [7] },
      { method: 'listChatMessages', args: [7, 3] },
      { method: 'updateChat', args: [7, { responsible: 'bob@example.com' }] },
      { method: 'updateChat', args: [7, { responsible: '' }] },
    ]);
  });

  it('files: upload reads the file with its mime type; get, list and delete', async () => {
    const path = join(tempDir(), 'report.pdf');
    writeFileSync(path, '%PDF');
    const client = fakeClient();
    const upload = await runSvc(['files', 'upload', path, '--json'], { client });
    expect(upload.json()).toMatchObject({ uid: 'file_1' });
    expect(client.calls[0]!.args[0]).toMatchObject({ filename: 'report.pdf', mimetype: 'application/pdf' });
    expect((await runSvc(['files', 'get', 'file_1'], { client })).stdout).toContain('download_url: http://127.0.0.1/files/x');
    expect((await runSvc(['files', 'delete', 'file_1', '--yes'], { client })).stdout).toBe('deleted file_1\n');
    expect((await runSvc(['files', 'list', '--json'], { client })).json()).toMatchObject({ has_more_pages: true });
  });

  it('accounts list, workspace and templates: print the API data', async () => {
    const client = fakeClient();
    expect((await runSvc(['accounts', 'list', '--json'], { client })).json()).toEqual({ items: [expect.objectContaining({ phone: '+15550001' })], page: 1, has_more_pages: false });
    const workspace = await runSvc(['workspace'], { client });
    expect(workspace.stdout).toContain('quota: 3/1000 used, 997 left');
    expect(workspace.stdout).toContain('plan: standard');
    expect((await runSvc(['templates', 'list'], { client, tty: true })).stdout).toContain('no templates');
    const created = await runSvc(['templates', 'create', '--name', 'menu', '--file-uid', 'file_1', '--json'], { client });
    expect(created.json()).toMatchObject({ id: 3, name: 'menu' });
    expect(client.calls.at(-1)).toEqual({ method: 'createTemplate', args: [{ name: 'menu', file_uid: 'file_1' }] });
    expect((await runSvc(['templates', 'create', '--name', 'menu'], { client })).code).toBe(2);
  });
});

describe('svc sim', () => {
  it('sim: connect, receive, react, account changes and unreachable go through client.sim', async () => {
    const client = fakeClient();
    for (const argv of [
      ['sim', 'connect', '--phone', '+15550001', '--name', 'Shop'],
      ['sim', 'receive', '--from', '+4915112345', '--to', '+15550001', '--text', 'Hi'],
      ['sim', 'react', 'msg_1', '--emoji', '👍'],
      ['sim', 'disconnect', '--phone', '+15550001'],
      ['sim', 'suspend', '--phone', '+15550001'],
      ['sim', 'resume', '--phone', '+15550001'],
      ['sim', 'unreachable', '--phone', '+4915112345'],
      ['sim', 'unreachable', '--phone', '+4915112345', '--off'],
    ]) {
      const run = await runSvc(argv, { client });
      expect(run.code, `${argv.join(' ')}: ${run.stderr}`).toBe(0);
    }
    expect(client.calls).toEqual([
      { method: 'sim.connect', args: [{ phone: '+15550001', full_name: 'Shop' }] },
      { method: 'sim.receive', args: [{ from: '+4915112345', to: '+15550001', text: 'Hi' }] },
      { method: 'sim.react', args: [{ message_uid: 'msg_1', emoji: '👍' }] },
      { method: 'sim.disconnect', args: ['+15550001'] },
      { method: 'sim.suspend', args: ['+15550001'] },
      { method: 'sim.resume', args: ['+15550001'] },
      { method: 'sim.setUnreachable', args: ['+4915112345', true] },
      { method: 'sim.setUnreachable', args: ['+4915112345', false] },
    ]);
  });

  it('sim: --workspace selects the workspace of the local engine', async () => {
    const run = await runSvc(['sim', 'connect', '--phone', '+15550001', '--workspace', '2', '--json']);
    expect(run.code).toBe(0);
    expect(run.configs[0]).toMatchObject({ workspaceId: 2, baseUrl: undefined });
    expect(run.json()).toEqual({ phone: '+15550001', status: 'connected' });
  });

  it('sim: receive without text or file is a usage error', async () => {
    const run = await runSvc(['sim', 'receive', '--from', '+4915112345', '--to', '+15550001']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--text or --file-uid');
  });
});
