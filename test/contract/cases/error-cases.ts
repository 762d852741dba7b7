/** The error catalogue as both clients throw it: not_found, validation_error, conflict (docs/api-behaviour.md). */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';
import { bytes, expectCode } from '../contract-target.js';

const UNKNOWN_UID = '00000000-0000-4000-8000-000000000000';
const UNKNOWN_ID = 999_999;

export const errorCases: CaseGroup = (target) => {
  it('sendToChatName: an unknown chat name is not_found', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.sendToChatName({ chat_name: 'Nobody', text: 'Hi' }), 'not_found');
  });

  it('sendToChat: an unknown chat id is not_found', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.sendToChat(UNKNOWN_ID, { text: 'Hi' }), 'not_found');
  });

  it('chats: get, update and messages of an unknown chat are not_found', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.getChat(UNKNOWN_ID), 'not_found');
    await expectCode(ws.client.updateChat(UNKNOWN_ID, { name: 'X' }), 'not_found');
    await expectCode(ws.client.listChatMessages(UNKNOWN_ID), 'not_found');
  });

  it('getMessage: an unknown uid is not_found', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.getMessage(UNKNOWN_UID), 'not_found');
    await expectCode(ws.client.getMessage('not-a-uid'), 'not_found');
  });

  it('files: get, delete and send of an unknown file are not_found', async () => {
    const ws = await target().workspace({ quota: 5 });
    await expectCode(ws.client.getFile(UNKNOWN_UID), 'not_found');
    await expectCode(ws.client.deleteFile(UNKNOWN_UID), 'not_found');
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', file_uid: UNKNOWN_UID }), 'not_found');
    await expectCode(ws.client.createTemplate({ name: 'T', file_uid: UNKNOWN_UID }), 'not_found');
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(0);
  });

  it('send: an unknown attachment template is not_found', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), attachment_template_id: UNKNOWN_ID }), 'not_found');
  });

  it('send: reply_to an unknown message is not_found', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', reply_to: UNKNOWN_UID }), 'not_found');
  });

  it('send: a message without text, file or template is validation_error on every endpoint', async () => {
    const ws = await target().workspace();
    const first = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', chat_name: 'Carol' });
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone() }), 'validation_error');
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: '' }), 'validation_error');
    await expectCode(ws.client.sendToChatName({ chat_name: 'Carol' }), 'validation_error');
    await expectCode(ws.client.sendToChat(first.chat_id, {}), 'validation_error');
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(1);
  });

  it('sendToPhone: a phone that is not a phone number is validation_error', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.sendToPhone({ phone: 'not-a-phone', text: 'Hi' }), 'validation_error');
    await expectCode(ws.client.sendToPhone({ phone: '', text: 'Hi' }), 'validation_error');
    expect((await ws.client.listChats()).items).toEqual([]);
  });

  it('send: file_uid together with attachment_template_id is validation_error', async () => {
    const ws = await target().workspace();
    const file = await ws.client.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: bytes('hi') });
    const template = await ws.client.createTemplate({ name: 'T', file_uid: file.uid });
    await expectCode(
      ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', file_uid: file.uid, attachment_template_id: template.id }),
      'validation_error',
    );
  });

  it('sendToChatName: an empty chat_name is validation_error', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.sendToChatName({ chat_name: '', text: 'Hi' }), 'validation_error');
  });

  it('updateChat: renaming onto another chat name is conflict; a bad responsible is validation_error', async () => {
    const ws = await target().workspace();
    const a = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', chat_name: 'Dave' });
    const b = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', chat_name: 'Erin' });
    await expectCode(ws.client.updateChat(b.chat_id, { name: 'Dave' }), 'conflict');
    await expectCode(ws.client.updateChat(b.chat_id, { responsible: 'not an e-mail' }), 'validation_error');
    await expectCode(ws.client.updateChat(b.chat_id, { name: '  ' }), 'validation_error');
    expect((await ws.client.getChat(b.chat_id)).name).toBe('Erin');
    expect((await ws.client.updateChat(a.chat_id, { name: 'Dave' })).name).toBe('Dave');
  });

  it('ids: a chat or template id below 1 or not whole, an empty or overlong uid, are validation_error', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.getChat(0), 'validation_error');
    await expectCode(ws.client.getChat(1.5), 'validation_error');
    await expectCode(ws.client.sendToChat(-1, { text: 'Hi' }), 'validation_error');
    await expectCode(ws.client.listChatMessages(2 ** 60), 'validation_error');
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), attachment_template_id: 1.5 }), 'validation_error');
    await expectCode(ws.client.getMessage(''), 'validation_error');
    await expectCode(ws.client.getMessage('x'.repeat(201)), 'validation_error');
    // Longer than the HTTP router's path segment limit too.
    await expectCode(ws.client.getFile('x'.repeat(300)), 'validation_error');
    await expectCode(ws.client.deleteFile(''), 'validation_error');
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(0);
  });

  it('lists: page 0 or past 1 000 000 is validation_error', async () => {
    const ws = await target().workspace();
    await expectCode(ws.client.listChats(1_000_001), 'validation_error');
    await expectCode(ws.client.listChats(0), 'validation_error');
    await expectCode(ws.client.listFiles(0), 'validation_error');
    await expectCode(ws.client.listTemplates(0), 'validation_error');
  });
};
