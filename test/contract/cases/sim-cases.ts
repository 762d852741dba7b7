/** Controls of the simulated network (`/sim`, `svc sim ...`) and what they do to accounts and sends. */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';
import { bytes, expectCode, waitForStatus } from '../contract-target.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const simCases: CaseGroup = (target) => {
  it('sim.connect: connects an account; a phone of another workspace is conflict, a bad phone validation_error', async () => {
    const ws = await target().workspace();
    const other = await target().workspace();
    const phone = ws.newPhone();
    expect(await ws.client.sim.connect({ phone })).toEqual({ phone, status: 'connected' });
    await expectCode(other.client.sim.connect({ phone }), 'conflict');
    // Not an oracle: the refusal does not say the number is connected somewhere else.
    const refusal = await other.client.sim.connect({ phone }).catch((error: Error) => error);
    expect(String((refusal as Error).message)).not.toMatch(/another workspace|is connected/);
    await expectCode(ws.client.sim.connect({ phone: '12345' }), 'validation_error');
  });

  it('sim.receive: an incoming message with text, attachment and reply', async () => {
    const ws = await target().workspace();
    const contact = ws.newPhone();
    const file = await ws.client.uploadFile({ filename: 'photo.jpg', mimetype: 'image/jpeg', content: bytes('jpeg') });
    const first = await ws.client.sim.receive({ from: contact, to: ws.accountPhone, text: 'Look', file_uid: file.uid });
    const reply = await ws.client.sim.receive({ from: contact, to: ws.accountPhone, text: 'Well?', reply_to: first.message_uid });
    expect(reply.chat_id).toBe(first.chat_id);
    expect(await ws.client.getMessage(first.message_uid)).toMatchObject({
      direction: 'received', status: 'Sent', text: 'Look', file_uid: file.uid, contact_phone: contact, credits: 0,
    });
    expect((await ws.client.getMessage(reply.message_uid)).reply_to_uid).toBe(first.message_uid);
    await expectCode(ws.client.sim.receive({ from: contact, to: ws.accountPhone }), 'validation_error');
    await expectCode(ws.client.sim.receive({ from: 'nobody', to: ws.accountPhone, text: 'Hi' }), 'validation_error');
    await expectCode(ws.client.sim.receive({ from: contact, to: '+19995550001', text: 'Hi' }), 'not_found');
  });

  it('sim.react: counts reactions per emoji as strings', async () => {
    const ws = await target().workspace();
    const sent = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Party?' });
    expect(await ws.client.sim.react({ message_uid: sent.message_uid, emoji: '👍' })).toEqual({
      message_uid: sent.message_uid,
      reactions: { '👍': '1' },
    });
    await ws.client.sim.react({ message_uid: sent.message_uid, emoji: '👍' });
    const last = await ws.client.sim.react({ message_uid: sent.message_uid, emoji: '🎉' });
    expect(last.reactions).toEqual({ '👍': '2', '🎉': '1' });
    expect((await ws.client.getMessage(sent.message_uid)).reactions).toEqual({ '👍': '2', '🎉': '1' });
    await expectCode(ws.client.sim.react({ message_uid: '00000000-0000-4000-8000-000000000000', emoji: '👍' }), 'not_found');
  });

  it('sim.disconnect: sends through the account fail with account_not_connected and restore credits', async () => {
    const ws = await target().workspace({ quota: 5 });
    const first = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi' });
    await waitForStatus(ws.client, first.message_uid, 'Sent');
    expect(await ws.client.sim.disconnect(ws.accountPhone)).toEqual({ phone: ws.accountPhone, status: 'disconnected' });
    expect((await ws.client.listAccounts()).items[0]).toMatchObject({ status: 'disconnected', is_default_sender: false });

    const sent = await ws.client.sendToChat(first.chat_id, { text: 'Still there?' });
    expect((await waitForStatus(ws.client, sent.message_uid, 'Failed')).failure_reason).toBe('account_not_connected');
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(1);
    // No connected account left to be the default sender.
    await expectCode(ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Hi' }), 'conflict');
    await expectCode(ws.client.sim.disconnect(ws.accountPhone), 'conflict');
  });

  it('sim.suspend and sim.resume: a suspended account holds its queue until resumed', async () => {
    const ws = await target().workspace();
    expect(await ws.client.sim.suspend(ws.accountPhone)).toEqual({ phone: ws.accountPhone, status: 'suspended' });
    const sent = await ws.client.sendToPhone({ phone: ws.newPhone(), text: 'Queued', messenger_account_phone: ws.accountPhone });
    await sleep(300); // several worker polls
    expect((await ws.client.getMessage(sent.message_uid)).status).toBe('Pending');
    await expectCode(ws.client.sim.resume(ws.newPhone()), 'not_found');
    expect(await ws.client.sim.resume(ws.accountPhone)).toEqual({ phone: ws.accountPhone, status: 'connected' });
    await waitForStatus(ws.client, sent.message_uid, 'Sent');
    await expectCode(ws.client.sim.resume(ws.accountPhone), 'conflict');
  });
};
