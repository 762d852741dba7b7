import { describe, expect, it } from 'vitest';
import { countRows, expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const LOCAL_SENDER = '+15550000001';
const OTHER = '+15550006001';

describe('labels', () => {
  it('sendToPhone: a missing label is created and attached to the chat, once', async () => {
    const { api, db } = await testEngine();
    const { chat_id } = await api.sendToPhone({ phone: '+14155550123', text: 'one', label: 'Lead' });
    expect((await api.getChat(chat_id)).labels).toEqual(['Lead']);
    await api.sendToChat(chat_id, { text: 'two', label: 'Lead' });
    await api.sendToChat(chat_id, { text: 'three', label: 'VIP' });
    expect((await api.getChat(chat_id)).labels).toEqual(['Lead', 'VIP']);
    const other = await api.sendToPhone({ phone: '+14155550124', text: 'x', label: 'Lead' });
    expect((await api.getChat(other.chat_id)).labels).toEqual(['Lead']);
    expect(countRows(db, 'labels')).toBe(2);
  });
});

describe('attachment templates', () => {
  it('sendToPhone: a template of the workspace is sent with its file; one of another workspace is not_found', async () => {
    const { api, engine } = await testEngine();
    const file = await api.uploadFile({ filename: 'menu.pdf', mimetype: 'application/pdf', content: Buffer.from('%PDF') });
    const mine = await api.createTemplate({ name: 'Menu', file_uid: file.uid });
    const sent = await api.sendToPhone({ phone: '+14155550123', attachment_template_id: mine.id });
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ attachment_template_id: mine.id, file_uid: file.uid });

    const { workspace_id } = await engine.admin.createWorkspace({ name: 'Other' });
    const otherApi = engine.workspace(workspace_id);
    const theirFile = await otherApi.uploadFile({ filename: 'b', mimetype: 'text/plain', content: Buffer.from('b') });
    const theirs = await otherApi.createTemplate({ name: 'Theirs', file_uid: theirFile.uid });
    const used = (await api.getWorkspace()).messaging_quota.used;
    await expectSvcError(() => api.sendToPhone({ phone: '+14155550123', text: 'x', attachment_template_id: theirs.id }), 'not_found');
    await expectSvcError(() => api.sendToPhone({ phone: '+14155550123', attachment_template_id: 999_999 }), 'not_found');
    expect((await api.getWorkspace()).messaging_quota.used).toBe(used);
  });

  it("createTemplate: a file of another workspace is not_found", async () => {
    const { api, engine } = await testEngine();
    const { workspace_id } = await engine.admin.createWorkspace({ name: 'Other' });
    const theirFile = await engine.workspace(workspace_id).uploadFile({ filename: 'b', mimetype: 'text/plain', content: Buffer.from('b') });
    await expectSvcError(() => api.createTemplate({ name: 'Stolen', file_uid: theirFile.uid }), 'not_found');
  });
});

describe('reply_to', () => {
  async function withIncoming() {
    const t = await testEngine();
    await t.sim.connect({ phone: OTHER });
    const incoming = await t.sim.receive({ from: '+4915110000001', to: LOCAL_SENDER, text: 'Question?' });
    return { ...t, incoming };
  }

  it('sendToChat: a reply to a message of the same workspace and account is kept', async () => {
    const { api, incoming } = await withIncoming();
    const sent = await api.sendToChat(incoming.chat_id, { text: 'Answer', reply_to: incoming.message_uid });
    expect((await api.getMessage(sent.message_uid)).reply_to_uid).toBe(incoming.message_uid);
  });

  it('sendToPhone: a reply through another account is validation_error', async () => {
    const { api, incoming } = await withIncoming();
    const error = await expectSvcError(
      () => api.sendToPhone({ phone: '+4915110000001', text: 'x', reply_to: incoming.message_uid, messenger_account_phone: OTHER }),
      'validation_error',
    );
    expect(error.status).toBe(400);
  });

  it("sendToPhone: a reply to another workspace's message is not_found", async () => {
    const { engine, incoming } = await withIncoming();
    const { workspace_id } = await engine.admin.createWorkspace({ name: 'Other' });
    await engine.sim(workspace_id).connect({ phone: '+15550006002' });
    await expectSvcError(() => engine.workspace(workspace_id).sendToPhone({ phone: '+4915110000001', text: 'x', reply_to: incoming.message_uid }), 'not_found');
    await expectSvcError(() => engine.workspace(workspace_id).sendToPhone({ phone: '+4915110000001', text: 'x', reply_to: 'no-such-uid' }), 'not_found');
  });

  it.each([null, ''])('sendToChat: reply_to %j is ignored', async (replyTo) => {
    const { api, incoming } = await withIncoming();
    const sent = await api.sendToChat(incoming.chat_id, { text: 'x', reply_to: replyTo });
    expect(await api.getMessage(sent.message_uid)).not.toHaveProperty('reply_to_uid');
  });
});
