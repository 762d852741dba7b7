/** Sending (docs/api-behaviour.md): statuses, credits, restores, quota, and the three ways to address a chat. */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';
import { bytes, expectCode, waitForStatus } from '../contract-target.js';

export const sendCases: CaseGroup = (target) => {
  it('sendToPhone: answers Pending with a uid and 1 credit, then the message goes Sent', async () => {
    const ws = await target().workspace({ quota: 10 });
    const phone = ws.newPhone();
    const sent = await ws.client.sendToPhone({ phone, text: 'Hello' });
    expect(sent).toMatchObject({ status: 'Pending', credits: 1 });
    expect(sent.message_uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(sent.chat_id).toBeGreaterThan(0);
    expect((await ws.client.getWorkspace()).messaging_quota).toMatchObject({ total: 10, used: 1, remaining: 9 });

    const message = await waitForStatus(ws.client, sent.message_uid, 'Sent');
    expect(message).toMatchObject({
      uid: sent.message_uid,
      chat_id: sent.chat_id,
      direction: 'sent',
      failure_reason: null,
      text: 'Hello',
      contact_phone: phone,
      messenger_account_phone: ws.accountPhone,
      credits: 1,
    });
    expect(message.sent_at).not.toBeNull();
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(1);
  });

  it('sendToPhone: text with an attachment costs 2 credits, an attachment alone 1', async () => {
    const ws = await target().workspace({ quota: 10 });
    const file = await ws.client.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: bytes('hi') });
    const both = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'See attached', file_uid: file.uid });
    const fileOnly = await ws.client.sendToPhone({ phone: ws.newPhone(), file_uid: file.uid });
    expect(both.credits).toBe(2);
    expect(fileOnly.credits).toBe(1);
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(3);
    expect(await waitForStatus(ws.client, both.message_uid, 'Sent')).toMatchObject({ file_uid: file.uid, credits: 2 });
  });

  it('sendToPhone: an invalid number fails with invalid_number and its credits come back', async () => {
    const ws = await target().workspace({ quota: 10 });
    const sent = await ws.client.sendToPhone({ phone: '+123', text: 'Hello' });
    expect(sent.status).toBe('Pending');
    const failed = await waitForStatus(ws.client, sent.message_uid, 'Failed');
    expect(failed.failure_reason).toBe('invalid_number');
    expect(failed.sent_at).toBeNull();
    expect((await ws.client.getWorkspace()).messaging_quota).toMatchObject({ used: 0, remaining: 10 });
  });

  it('sendToPhone: an unreachable number fails with unreachable and its credits come back', async () => {
    const ws = await target().workspace({ quota: 10 });
    const phone = ws.newPhone();
    expect(await ws.client.sim.setUnreachable(phone, true)).toEqual({ phone, unreachable: true });
    const file = await ws.client.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: bytes('hi') });
    const sent = await ws.client.sendToPhone({ phone, text: 'Hello', file_uid: file.uid });
    // The dispatcher may already have failed it by now, so the debit is read from the answer, not the quota.
    expect(sent.credits).toBe(2);
    expect((await waitForStatus(ws.client, sent.message_uid, 'Failed')).failure_reason).toBe('unreachable');
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(0);

    await ws.client.sim.setUnreachable(phone, false);
    const again = await ws.client.sendToPhone({ phone, text: 'Hello again' });
    await waitForStatus(ws.client, again.message_uid, 'Sent');
  });

  it('sendToPhone: over the quota is quota_exceeded and nothing is queued', async () => {
    const ws = await target().workspace({ quota: 1 });
    const file = await ws.client.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: bytes('hi') });
    // 2 credits needed, 1 left.
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', file_uid: file.uid }), 'quota_exceeded');
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(0);
    expect((await ws.client.listChats()).items).toEqual([]);

    const sent = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi' });
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: 'One too many' }), 'quota_exceeded');
    await expectCode(ws.client.sendToChat(sent.chat_id, { text: 'One too many' }), 'quota_exceeded');
    const chats = await ws.client.listChats();
    expect(chats.items.map((chat) => chat.id)).toEqual([sent.chat_id]);
    expect((await ws.client.listChatMessages(sent.chat_id)).items).toHaveLength(1);
    expect((await ws.client.getWorkspace()).messaging_quota).toMatchObject({ total: 1, used: 1, remaining: 0 });
  });

  it('sendToPhone: chat_name names the new chat, label is added to it, and the chat is reused', async () => {
    const ws = await target().workspace();
    const phone = ws.newPhone();
    const first = await ws.client.sendToPhone({ phone, text: 'Hi', chat_name: 'Alice', label: 'vip' });
    const second = await ws.client.sendToPhone({ phone, text: 'Hi again', label: 'lead' });
    expect(second.chat_id).toBe(first.chat_id);
    const chat = await ws.client.getChat(first.chat_id);
    expect(chat).toMatchObject({ name: 'Alice', phone, messenger_account_phone: ws.accountPhone, is_group: false });
    expect([...chat.labels].sort()).toEqual(['lead', 'vip']);
  });

  it('sendToPhone: messenger_account_phone picks the sender; otherwise the most recently connected', async () => {
    const ws = await target().workspace();
    const second = ws.newPhone();
    await ws.client.sim.connect({ phone: second });
    const byDefault = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi' });
    const named = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', messenger_account_phone: ws.accountPhone });
    expect((await ws.client.getMessage(byDefault.message_uid)).messenger_account_phone).toBe(second);
    expect((await ws.client.getMessage(named.message_uid)).messenger_account_phone).toBe(ws.accountPhone);
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', messenger_account_phone: '+19995550000' }), 'not_found');
  });

  it('sendToChatName: sends into the chat with exactly that name', async () => {
    const ws = await target().workspace();
    const first = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi', chat_name: 'Bob' });
    const sent = await ws.client.sendToChatName({ chat_name: 'Bob', text: 'By name' });
    expect(sent).toMatchObject({ status: 'Pending', chat_id: first.chat_id, credits: 1 });
    await waitForStatus(ws.client, sent.message_uid, 'Sent');
    await expectCode(ws.client.sendToChatName({ chat_name: 'bob', text: 'Case matters' }), 'not_found');
  });

  it('sendToChat: sends into the chat by id, through the chat account, and lists it there', async () => {
    const ws = await target().workspace();
    const incoming = await ws.client.sim.receive({ from: ws.newPhone(), to: ws.accountPhone, text: 'Hello?' });
    const sent = await ws.client.sendToChat(incoming.chat_id, { text: 'Answer', reply_to: incoming.message_uid });
    expect(sent).toMatchObject({ status: 'Pending', chat_id: incoming.chat_id, credits: 1 });
    const message = await waitForStatus(ws.client, sent.message_uid, 'Sent');
    expect(message).toMatchObject({ reply_to_uid: incoming.message_uid, messenger_account_phone: ws.accountPhone });
    const listed = await ws.client.listChatMessages(incoming.chat_id);
    expect(listed.items.map((m) => m.uid).sort()).toEqual([incoming.message_uid, sent.message_uid].sort());
    expect(listed).toMatchObject({ page: 1, has_more_pages: false });
  });

  it('sendToChat: reply_to null or "" is ignored', async () => {
    const ws = await target().workspace();
    const first = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi' });
    const nullReply = await ws.client.sendToChat(first.chat_id, { text: 'a', reply_to: null });
    const emptyReply = await ws.client.sendToChat(first.chat_id, { text: 'b', reply_to: '' });
    // A message that replies to nothing has no reply_to_uid key (absent, not null).
    expect(await ws.client.getMessage(nullReply.message_uid)).not.toHaveProperty('reply_to_uid');
    expect(await ws.client.getMessage(emptyReply.message_uid)).not.toHaveProperty('reply_to_uid');
  });

  it('sendToChat: an attachment template attaches its file and costs like a file', async () => {
    const ws = await target().workspace();
    const file = await ws.client.uploadFile({ filename: 'brochure.pdf', mimetype: 'application/pdf', content: bytes('%PDF') });
    const template = await ws.client.createTemplate({ name: 'Brochure', file_uid: file.uid });
    const first = await ws.client.sendToPhone({ phone: ws.newPhone(), attachment_template_id: template.id });
    const second = await ws.client.sendToChat(first.chat_id, { text: 'Our brochure', attachment_template_id: template.id });
    expect([first.credits, second.credits]).toEqual([1, 2]);
    const message = await waitForStatus(ws.client, second.message_uid, 'Sent');
    expect(message).toMatchObject({ attachment_template_id: template.id, file_uid: file.uid });
  });
};
