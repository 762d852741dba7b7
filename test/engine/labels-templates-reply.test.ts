import { describe, expect, it } from 'vitest';
import { countRows, expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const LOCAL_SENDER = '+15550000001';
const OTHER = '+15550006001';

describe('labels', () => {
  it('sendToPhone: a missing label is created and attached to the chat, once', () => {
    const { api, db } = testEngine();
    const { chat_id } = api.sendToPhone({ phone: '+14155550123', text: 'one', label: 'Lead' });
    expect(api.getChat(chat_id).labels).toEqual(['Lead']);
    api.sendToChat(chat_id, { text: 'two', label: 'Lead' });
    api.sendToChat(chat_id, { text: 'three', label: 'VIP' });
    expect(api.getChat(chat_id).labels).toEqual(['Lead', 'VIP']);
    const other = api.sendToPhone({ phone: '+14155550124', text: 'x', label: 'Lead' });
    expect(api.getChat(other.chat_id).labels).toEqual(['Lead']);
    expect(countRows(db, 'labels')).toBe(2);
  });
});

describe('attachment templates', () => {
  it('sendToPhone: a template of the workspace is sent with its file; one of another workspace is not_found', () => {
    const { api, engine } = testEngine();
    const file = api.uploadFile({ filename: 'menu.pdf', mimetype: 'application/pdf', content: Buffer.from('%PDF') });
    const mine = api.createTemplate({ name: 'Menu', file_uid: file.uid });
    const sent = api.sendToPhone({ phone: '+14155550123', attachment_template_id: mine.id });
    expect(api.getMessage(sent.message_uid)).toMatchObject({ attachment_template_id: mine.id, file_uid: file.uid });

    const { workspace_id } = engine.admin.createWorkspace({ name: 'Other' });
    const otherApi = engine.workspace(workspace_id);
    const theirs = otherApi.createTemplate({ name: 'Theirs', file_uid: otherApi.uploadFile({ filename: 'b', mimetype: 'text/plain', content: Buffer.from('b') }).uid });
    const used = api.getWorkspace().messaging_quota.used;
    expectSvcError(() => api.sendToPhone({ phone: '+14155550123', text: 'x', attachment_template_id: theirs.id }), 'not_found');
    expectSvcError(() => api.sendToPhone({ phone: '+14155550123', attachment_template_id: 999_999 }), 'not_found');
    expect(api.getWorkspace().messaging_quota.used).toBe(used);
  });

  it("createTemplate: a file of another workspace is not_found", () => {
    const { api, engine } = testEngine();
    const { workspace_id } = engine.admin.createWorkspace({ name: 'Other' });
    const theirFile = engine.workspace(workspace_id).uploadFile({ filename: 'b', mimetype: 'text/plain', content: Buffer.from('b') });
    expectSvcError(() => api.createTemplate({ name: 'Stolen', file_uid: theirFile.uid }), 'not_found');
  });
});

describe('reply_to', () => {
  function withIncoming() {
    const t = testEngine();
    t.sim.connect({ phone: OTHER });
    const incoming = t.sim.receive({ from: '+4915110000001', to: LOCAL_SENDER, text: 'Question?' });
    return { ...t, incoming };
  }

  it('sendToChat: a reply to a message of the same workspace and account is kept', () => {
    const { api, incoming } = withIncoming();
    const sent = api.sendToChat(incoming.chat_id, { text: 'Answer', reply_to: incoming.message_uid });
    expect(api.getMessage(sent.message_uid).reply_to_uid).toBe(incoming.message_uid);
  });

  it('sendToPhone: a reply through another account is validation_error', () => {
    const { api, incoming } = withIncoming();
    const error = expectSvcError(
      () => api.sendToPhone({ phone: '+4915110000001', text: 'x', reply_to: incoming.message_uid, messenger_account_phone: OTHER }),
      'validation_error',
    );
    expect(error.status).toBe(400);
  });

  it("sendToPhone: a reply to another workspace's message is not_found", () => {
    const { engine, incoming } = withIncoming();
    const { workspace_id } = engine.admin.createWorkspace({ name: 'Other' });
    engine.sim(workspace_id).connect({ phone: '+15550006002' });
    expectSvcError(() => engine.workspace(workspace_id).sendToPhone({ phone: '+4915110000001', text: 'x', reply_to: incoming.message_uid }), 'not_found');
    expectSvcError(() => engine.workspace(workspace_id).sendToPhone({ phone: '+4915110000001', text: 'x', reply_to: 'no-such-uid' }), 'not_found');
  });

  it.each([null, ''])('sendToChat: reply_to %j is ignored', (replyTo) => {
    const { api, incoming } = withIncoming();
    const sent = api.sendToChat(incoming.chat_id, { text: 'x', reply_to: replyTo });
    expect(api.getMessage(sent.message_uid).reply_to_uid).toBeNull();
  });
});
