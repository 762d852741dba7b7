import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const LOCAL_SENDER = '+15550000001';

describe('incoming traffic', () => {
  it('sim receive: creates a chat started by the contact; the message is received and counts no credits', () => {
    const { api, sim } = testEngine();
    const got = sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Hallo', contact_name: 'Jonas' });
    expect(api.getChat(got.chat_id)).toMatchObject({ name: 'Jonas', phone: '+4915112345678', messenger_account_phone: LOCAL_SENDER });
    expect(api.getMessage(got.message_uid)).toMatchObject({ direction: 'received', status: 'Sent', text: 'Hallo', credits: 0 });
    expect(api.getWorkspace().messaging_quota.used).toBe(0);
    const again = sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Noch da?' });
    expect(again.chat_id).toBe(got.chat_id);
  });

  it('sim receive: a reply and an attachment are kept on the incoming message', () => {
    const { api, sim } = testEngine();
    const sent = api.sendToPhone({ phone: '+4915112345678', text: 'Offer' });
    const file = api.uploadFile({ filename: 'photo.jpg', mimetype: 'image/jpeg', content: Buffer.from('jpg') });
    const got = sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Yes', reply_to: sent.message_uid, file_uid: file.uid });
    expect(got.chat_id).toBe(sent.chat_id);
    expect(api.getMessage(got.message_uid)).toMatchObject({ reply_to_uid: sent.message_uid, file_uid: file.uid });
  });

  it('sim react: reactions are counted per emoji, as strings', () => {
    const { api, sim } = testEngine();
    const sent = api.sendToPhone({ phone: '+4915112345678', text: 'Offer' });
    expect(api.getMessage(sent.message_uid).reactions).toBeNull();
    sim.react({ message_uid: sent.message_uid, emoji: '👍' });
    sim.react({ message_uid: sent.message_uid, emoji: '❤️' });
    const last = sim.react({ message_uid: sent.message_uid, emoji: '👍' });
    expect(last.reactions).toEqual({ '👍': '2', '❤️': '1' });
    expect(api.getMessage(sent.message_uid).reactions).toEqual({ '👍': '2', '❤️': '1' });
  });

  it("sim react: a message of another workspace is not_found", () => {
    const { api, engine } = testEngine();
    const sent = api.sendToPhone({ phone: '+4915112345678', text: 'Offer' });
    const other = engine.sim(engine.admin.createWorkspace({ name: 'Other' }).workspace_id);
    expectSvcError(() => other.react({ message_uid: sent.message_uid, emoji: '👍' }), 'not_found');
    expect(api.getMessage(sent.message_uid).reactions).toBeNull();
  });
});

describe('account status', () => {
  const statusOf = (t: ReturnType<typeof testEngine>) => t.api.listAccounts().items.find((a) => a.phone === LOCAL_SENDER)?.status;

  it('sim suspend, resume, disconnect: change the account status', () => {
    const t = testEngine();
    expect(t.sim.suspend(LOCAL_SENDER)).toEqual({ phone: LOCAL_SENDER, status: 'suspended' });
    expect(statusOf(t)).toBe('suspended');
    expect(t.sim.resume(LOCAL_SENDER).status).toBe('connected');
    expect(statusOf(t)).toBe('connected');
    expect(t.sim.disconnect(LOCAL_SENDER).status).toBe('disconnected');
    expect(statusOf(t)).toBe('disconnected');
    expect(t.sim.connect({ phone: LOCAL_SENDER }).status).toBe('connected');
  });

  it('sim resume: only from suspended, conflict otherwise', () => {
    const t = testEngine();
    expect(expectSvcError(() => t.sim.resume(LOCAL_SENDER), 'conflict').status).toBe(409);
    t.sim.disconnect(LOCAL_SENDER);
    expectSvcError(() => t.sim.resume(LOCAL_SENDER), 'conflict');
    expectSvcError(() => t.sim.suspend(LOCAL_SENDER), 'conflict');
    expectSvcError(() => t.sim.disconnect(LOCAL_SENDER), 'conflict');
    expect(statusOf(t)).toBe('disconnected');
  });

  it('sim suspend: a suspended account holds its queue until it resumes', async () => {
    const t = testEngine();
    const sent = t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    t.sim.suspend(LOCAL_SENDER);
    expect(await t.engine.workers.runDue()).toBe(0);
    expect(t.api.getMessage(sent.message_uid).status).toBe('Pending');
    t.sim.resume(LOCAL_SENDER);
    expect(await t.engine.workers.runDue()).toBe(1);
    expect(t.api.getMessage(sent.message_uid).status).toBe('Sent');
    expect(t.api.getWorkspace().messaging_quota.used).toBe(1);
  });
});
