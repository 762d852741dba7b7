import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

describe('tokens', () => {
  it('authenticate: each token gives its own workspace; wrong, empty or mangled tokens give null', () => {
    const { engine, local } = testEngine();
    const other = engine.admin.createWorkspace({ name: 'Other' });
    expect(engine.authenticate(local.token)).toBe(local.workspace_id);
    expect(engine.authenticate(other.token)).toBe(other.workspace_id);
    expect(other.workspace_id).not.toBe(local.workspace_id);
    expect(engine.authenticate('')).toBeNull();
    expect(engine.authenticate('svc_wrong')).toBeNull();
    expect(engine.authenticate(`${local.token}x`)).toBeNull();
    expect(engine.authenticate(local.token.slice(0, -1))).toBeNull();
  });

  it('ensureLocalWorkspace: answers the same workspace and token every time', () => {
    const { engine, local } = testEngine();
    expect(engine.ensureLocalWorkspace()).toEqual(local);
  });
});

describe('workspace isolation', () => {
  it("getMessage, getChat, listChatMessages, updateChat, getFile: another workspace's records are not_found", () => {
    const { engine, api } = testEngine();
    const sent = api.sendToPhone({ phone: '+14155550123', text: 'secret' });
    const file = api.uploadFile({ filename: 'f', mimetype: 'text/plain', content: Buffer.from('f') });
    const other = engine.workspace(engine.admin.createWorkspace({ name: 'Other' }).workspace_id);
    expectSvcError(() => other.getMessage(sent.message_uid), 'not_found');
    expectSvcError(() => other.getChat(sent.chat_id), 'not_found');
    expectSvcError(() => other.listChatMessages(sent.chat_id, 1), 'not_found');
    expectSvcError(() => other.updateChat(sent.chat_id, { responsible: 'eve@example.com' }), 'not_found');
    expectSvcError(() => other.getFile(file.uid), 'not_found');
    expect(other.listChats(1).items).toEqual([]);
    expect(api.getChat(sent.chat_id).responsible_email).toBeNull();
  });
});
