import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvcClient } from '../../src/client/client.js';
import { createHttpClient } from '../../src/client/http-client.js';
import type { Engine, WorkspaceApi } from '../../src/engine/engine-api.js';
import { openEngine } from '../../src/runtime/open-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';

// The response schemas drive serialisation and drop fields they do not list: what the real engine returns
// must come out of the HTTP layer unchanged, or the local and HTTP clients would disagree.
describe('HTTP answers equal the real engine results', () => {
  let dataDir: string;
  let engine: Engine;
  let direct: WorkspaceApi;
  let client: SvcClient;
  let close: () => Promise<void>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-parity-'));
    engine = await openEngine({ dataDir, dev: true });
    const { workspace_id: workspaceId, token } = await engine.ensureLocalWorkspace();
    const app = buildServer({ engine, publicUrl: 'http://links.test', rateLimitPerMinute: 0 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    direct = engine.workspace(workspaceId, { linkBase: 'http://links.test' });
    client = createHttpClient({ baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api`, token });
    close = async () => {
      await client.close();
      await app.close();
      await engine.close();
      rmSync(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(() => close());

  it('workspace, accounts: equal', async () => {
    expect(await client.getWorkspace()).toEqual(await direct.getWorkspace());
    expect(await client.listAccounts()).toEqual(await direct.listAccounts());
  });

  it('send, message, chat, chat messages: equal', async () => {
    const sent = await client.sendToPhone({ phone: '+14155550123', text: 'Hello', label: 'vip' });
    expect(await client.getMessage(sent.message_uid)).toEqual(await direct.getMessage(sent.message_uid));
    expect(await client.getChat(sent.chat_id)).toEqual(await direct.getChat(sent.chat_id));
    expect(await client.listChats()).toEqual(await direct.listChats(1));
    expect(await client.listChatMessages(sent.chat_id)).toEqual(await direct.listChatMessages(sent.chat_id, 1));
  });

  it('files and templates: equal', async () => {
    const file = await client.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: new TextEncoder().encode('hi') });
    const fetched = await client.getFile(file.uid);
    const expected = await direct.getFile(file.uid);
    // Download links are signed at the moment of the call; compare everything else.
    expect({ ...fetched, temporary_download_url: undefined, expires_at: undefined }).toEqual({
      ...expected,
      temporary_download_url: undefined,
      expires_at: undefined,
    });
    expect(fetched.temporary_download_url).toMatch(/^http:\/\/links\.test\/files\//);
    expect(await client.listFiles()).toEqual(await direct.listFiles(1));
    const template = await client.createTemplate({ name: 'Brochure', file_uid: file.uid });
    expect(await client.listTemplates()).toEqual(await direct.listTemplates(1));
    expect(template.file_uid).toBe(file.uid);
  });

  it('sim receive and react: reach the real sim', async () => {
    const account = (await client.listAccounts()).items[0];
    expect(account).toBeDefined();
    const received = await client.sim.receive({ from: '+4915112345', to: account?.phone ?? '', text: 'Hi there' });
    const reacted = await client.sim.react({ message_uid: received.message_uid, emoji: '👍' });
    expect(reacted.reactions).toEqual({ '👍': '1' });
    expect(await client.getMessage(received.message_uid)).toEqual(await direct.getMessage(received.message_uid));
  });
});
