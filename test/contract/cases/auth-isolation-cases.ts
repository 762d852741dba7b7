/** Tokens and workspace isolation: a bad token is refused, and one workspace never sees another's data. */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';
import { bytes, expectCode } from '../contract-target.js';

export const authIsolationCases: CaseGroup = (target) => {
  it('client: a wrong token is unauthorized', async () => {
    const ws = await target().workspace();
    const useWith = async (token: string) => {
      const client = await target().connect(token);
      return client.getWorkspace();
    };
    await expectCode(useWith(`${ws.token}x`), 'unauthorized');
    await expectCode(useWith('svc_not_a_real_token'), 'unauthorized');
  });

  it('client: a second client on the same token sees the same workspace', async () => {
    const ws = await target().workspace();
    const sent = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi' });
    const again = await target().connect(ws.token);
    expect((await again.getWorkspace()).id).toBe(ws.id);
    expect((await again.getMessage(sent.message_uid)).uid).toBe(sent.message_uid);
  });

  it('isolation: workspace B cannot see or touch the chats, messages and files of workspace A', async () => {
    const a = await target().workspace();
    const b = await target().workspace();
    const sent = await a.client.sendToPhone({ phone: a.newPhone(), text: 'Private', chat_name: 'Secret' });
    const file = await a.client.uploadFile({ filename: 'secret.txt', mimetype: 'text/plain', content: bytes('s') });
    const template = await a.client.createTemplate({ name: 'Secret', file_uid: file.uid });

    await expectCode(b.client.getMessage(sent.message_uid), 'not_found');
    await expectCode(b.client.getChat(sent.chat_id), 'not_found');
    await expectCode(b.client.listChatMessages(sent.chat_id), 'not_found');
    await expectCode(b.client.updateChat(sent.chat_id, { name: 'Mine' }), 'not_found');
    await expectCode(b.client.sendToChat(sent.chat_id, { text: 'Hijack' }), 'not_found');
    await expectCode(b.client.sendToChatName({ chat_name: 'Secret', text: 'Hijack' }), 'not_found');
    await expectCode(b.client.getFile(file.uid), 'not_found');
    await expectCode(b.client.deleteFile(file.uid), 'not_found');
    await expectCode(b.client.sendToPhone({ phone: b.newPhone(), text: 'x', file_uid: file.uid }), 'not_found');
    await expectCode(b.client.sendToPhone({ phone: b.newPhone(), attachment_template_id: template.id }), 'not_found');
    await expectCode(b.client.sendToPhone({ phone: b.newPhone(), text: 'x', reply_to: sent.message_uid }), 'not_found');
    await expectCode(b.client.sendToPhone({ phone: b.newPhone(), text: 'x', messenger_account_phone: a.accountPhone }), 'not_found');
    await expectCode(b.client.sim.react({ message_uid: sent.message_uid, emoji: '👍' }), 'not_found');
    await expectCode(b.client.sim.suspend(a.accountPhone), 'not_found');
    await expectCode(b.client.sim.receive({ from: b.newPhone(), to: a.accountPhone, text: 'x' }), 'not_found');

    expect((await b.client.listChats()).items).toEqual([]);
    expect((await b.client.listFiles()).items).toEqual([]);
    expect((await b.client.listTemplates()).items).toEqual([]);
    expect((await b.client.listAccounts()).items.map((acc) => acc.phone)).toEqual([b.accountPhone]);
    expect((await b.client.getWorkspace()).messaging_quota.used).toBe(0);
    // A's data is untouched.
    expect((await a.client.getChat(sent.chat_id)).name).toBe('Secret');
    expect((await a.client.getFile(file.uid)).uid).toBe(file.uid);
  });
};
