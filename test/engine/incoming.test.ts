import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const LOCAL_SENDER = '+15550000001';

describe('incoming traffic', () => {
  it('sim receive: creates a chat started by the contact; the message is received and counts no credits', async () => {
    const { api, sim } = await testEngine();
    const got = await sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Hallo', contact_name: 'Jonas' });
    expect(await api.getChat(got.chat_id)).toMatchObject({ name: 'Jonas', phone: '+4915112345678', messenger_account_phone: LOCAL_SENDER });
    expect(await api.getMessage(got.message_uid)).toMatchObject({ direction: 'received', status: 'Sent', text: 'Hallo', credits: 0 });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
    const again = await sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Noch da?' });
    expect(again.chat_id).toBe(got.chat_id);
  });

  it('sim receive: a reply and an attachment are kept on the incoming message', async () => {
    const { api, sim } = await testEngine();
    const sent = await api.sendToPhone({ phone: '+4915112345678', text: 'Offer' });
    const file = await api.uploadFile({ filename: 'photo.jpg', mimetype: 'image/jpeg', content: Buffer.from('jpg') });
    const got = await sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Yes', reply_to: sent.message_uid, file_uid: file.uid });
    expect(got.chat_id).toBe(sent.chat_id);
    expect(await api.getMessage(got.message_uid)).toMatchObject({ reply_to_uid: sent.message_uid, file_uid: file.uid });
  });

  it('sim react: reactions are counted per emoji, as strings', async () => {
    const { api, sim } = await testEngine();
    const sent = await api.sendToPhone({ phone: '+4915112345678', text: 'Offer' });
    expect((await api.getMessage(sent.message_uid)).reactions).toBeNull();
    await sim.react({ message_uid: sent.message_uid, emoji: '👍' });
    await sim.react({ message_uid: sent.message_uid, emoji: '❤️' });
    const last = await sim.react({ message_uid: sent.message_uid, emoji: '👍' });
    expect(last.reactions).toEqual({ '👍': '2', '❤️': '1' });
    expect((await api.getMessage(sent.message_uid)).reactions).toEqual({ '👍': '2', '❤️': '1' });
  });

  it("sim react: a message of another workspace is not_found", async () => {
    const { api, engine } = await testEngine();
    const sent = await api.sendToPhone({ phone: '+4915112345678', text: 'Offer' });
    const other = engine.sim((await engine.admin.createWorkspace({ name: 'Other' })).workspace_id);
    await expectSvcError(() => other.react({ message_uid: sent.message_uid, emoji: '👍' }), 'not_found');
    expect((await api.getMessage(sent.message_uid)).reactions).toBeNull();
  });
});

describe('account status', () => {
  const statusOf = async (t: Awaited<ReturnType<typeof testEngine>>) =>
    (await t.api.listAccounts()).items.find((a) => a.phone === LOCAL_SENDER)?.status;

  it('sim suspend, resume, disconnect: change the account status', async () => {
    const t = await testEngine();
    expect(await t.sim.suspend(LOCAL_SENDER)).toEqual({ phone: LOCAL_SENDER, status: 'suspended' });
    expect(await statusOf(t)).toBe('suspended');
    expect((await t.sim.resume(LOCAL_SENDER)).status).toBe('connected');
    expect(await statusOf(t)).toBe('connected');
    expect((await t.sim.disconnect(LOCAL_SENDER)).status).toBe('disconnected');
    expect(await statusOf(t)).toBe('disconnected');
    expect((await t.sim.connect({ phone: LOCAL_SENDER })).status).toBe('connected');
  });

  it('sim resume: only from suspended, conflict otherwise', async () => {
    const t = await testEngine();
    expect((await expectSvcError(() => t.sim.resume(LOCAL_SENDER), 'conflict')).status).toBe(409);
    await t.sim.disconnect(LOCAL_SENDER);
    await expectSvcError(() => t.sim.resume(LOCAL_SENDER), 'conflict');
    await expectSvcError(() => t.sim.suspend(LOCAL_SENDER), 'conflict');
    await expectSvcError(() => t.sim.disconnect(LOCAL_SENDER), 'conflict');
    expect(await statusOf(t)).toBe('disconnected');
  });

  it('sim suspend: a suspended account holds its queue until it resumes', async () => {
    const t = await testEngine();
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    await t.sim.suspend(LOCAL_SENDER);
    expect(await t.engine.workers.runDue()).toBe(0);
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Pending');
    await t.sim.resume(LOCAL_SENDER);
    expect(await t.engine.workers.runDue()).toBe(1);
    expect((await t.api.getMessage(sent.message_uid)).status).toBe('Sent');
    expect((await t.api.getWorkspace()).messaging_quota.used).toBe(1);
  });
});
