import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

describe('tokens', () => {
  it('authenticate: each token gives its own workspace; wrong, empty or mangled tokens give null', async () => {
    const { engine, local } = await testEngine();
    const other = await engine.admin.createWorkspace({ name: 'Other' });
    expect(await engine.authenticate(local.token)).toBe(local.workspace_id);
    expect(await engine.authenticate(other.token)).toBe(other.workspace_id);
    expect(other.workspace_id).not.toBe(local.workspace_id);
    expect(await engine.authenticate('')).toBeNull();
    expect(await engine.authenticate('svc_wrong')).toBeNull();
    expect(await engine.authenticate(`${local.token}x`)).toBeNull();
    expect(await engine.authenticate(local.token.slice(0, -1))).toBeNull();
  });

  it('ensureLocalWorkspace: answers the same workspace and token every time', async () => {
    const { engine, local } = await testEngine();
    expect(await engine.ensureLocalWorkspace()).toEqual(local);
  });
});

describe('workspace isolation', () => {
  it("getMessage, getChat, listChatMessages, updateChat, getFile: another workspace's records are not_found", async () => {
    const { engine, api } = await testEngine();
    const sent = await api.sendToPhone({ phone: '+14155550123', text: 'secret' });
    const file = await api.uploadFile({ filename: 'f', mimetype: 'text/plain', content: Buffer.from('f') });
    const other = engine.workspace((await engine.admin.createWorkspace({ name: 'Other' })).workspace_id);
    await expectSvcError(() => other.getMessage(sent.message_uid), 'not_found');
    await expectSvcError(() => other.getChat(sent.chat_id), 'not_found');
    await expectSvcError(() => other.listChatMessages(sent.chat_id, 1), 'not_found');
    await expectSvcError(() => other.updateChat(sent.chat_id, { responsible: 'eve@example.com' }), 'not_found');
    await expectSvcError(() => other.getFile(file.uid), 'not_found');
    expect((await other.listChats(1)).items).toEqual([]);
    expect(await api.getChat(sent.chat_id)).not.toHaveProperty('responsible_email');
  });
});
