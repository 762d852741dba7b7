import { describe, expect, it } from 'vitest';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const A = '+15550005001';
const B = '+15550005002';

/** A workspace without the Local sender, so the accounts under test are the only ones. */
async function bareWorkspace() {
  const t = await testEngine();
  const { workspace_id } = await t.engine.admin.createWorkspace({ name: 'Bare' });
  return { ...t, ws: workspace_id, api: t.engine.workspace(workspace_id), sim: t.engine.sim(workspace_id) };
}

const senderOf = async (t: Awaited<ReturnType<typeof bareWorkspace>>, phone: string) =>
  (await t.api.getMessage((await t.api.sendToPhone({ phone, text: 'Hi' })).message_uid)).messenger_account_phone;

describe('accounts: default sender', () => {
  it('sendToPhone: with every account suspended, the refusal names them', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    await t.sim.suspend(A);
    const error = await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550001', text: 'Hi' }), 'conflict');
    expect(error.message).toBe(`This workspace's messenger account ${A} is suspended`);
  });

  it('sendToPhone: the most recently connected account sends; reconnecting makes it the default again', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    expect(await senderOf(t, '+14155550001')).toBe(A);
    t.clock.advance(1000);
    await t.sim.connect({ phone: B });
    expect(await senderOf(t, '+14155550002')).toBe(B);
    t.clock.advance(1000);
    await t.sim.connect({ phone: A });
    expect(await senderOf(t, '+14155550003')).toBe(A);
    expect((await t.api.listAccounts()).items.filter((a) => a.is_default_sender).map((a) => a.phone)).toEqual([A]);
  });

  it('sendToPhone: a disconnected default gives way to the next connected account', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    t.clock.advance(1000);
    await t.sim.connect({ phone: B });
    await t.sim.disconnect(B);
    expect(await senderOf(t, '+14155550001')).toBe(A);
  });

  it('sendToPhone: messenger_account_phone picks that account; an unknown one is not_found', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    t.clock.advance(1000);
    await t.sim.connect({ phone: B });
    const sent = await t.api.sendToPhone({ phone: '+14155550001', text: 'Hi', messenger_account_phone: A });
    expect((await t.api.getMessage(sent.message_uid)).messenger_account_phone).toBe(A);
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550001', text: 'Hi', messenger_account_phone: '+15550009999' }), 'not_found');
  });

  it("sendToPhone: another workspace's account is not_found", async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    await expectSvcError(
      () => t.engine.workspace(t.local.workspace_id).sendToPhone({ phone: '+14155550001', text: 'Hi', messenger_account_phone: A }),
      'not_found',
    );
  });

  it('sendToPhone: no connected account -> conflict', async () => {
    const t = await bareWorkspace();
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550001', text: 'Hi' }), 'conflict');
    await t.sim.connect({ phone: A });
    await t.sim.disconnect(A);
    expect((await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550001', text: 'Hi' }), 'conflict')).status).toBe(409);
    expect((await t.api.getWorkspace()).messaging_quota.used).toBe(0);
  });
});

describe('chats: names and lookup', () => {
  it('sim receive: contacts with the same name get "Alice", "Alice (2)", "Alice (3)"', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    await t.sim.connect({ phone: B });
    const names: string[] = [];
    // One after the other: the order of arrival decides the suffixes.
    for (const m of [
      { from: '+4915110000001', to: A },
      { from: '+4915110000002', to: B },
      { from: '+4915110000003', to: A },
    ]) {
      names.push((await t.api.getChat((await t.sim.receive({ ...m, text: 'Hi', contact_name: 'Alice' })).chat_id)).name);
    }
    expect(names).toEqual(['Alice', 'Alice (2)', 'Alice (3)']);
  });

  it('sendToPhone: a second send to the same phone reuses its chat, however the number is written', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    const first = await t.api.sendToPhone({ phone: '+14155550123', text: 'one' });
    const second = await t.api.sendToPhone({ phone: '+1 (415) 555-0123', text: 'two' });
    expect(second.chat_id).toBe(first.chat_id);
    expect((await t.api.listChats(1)).items).toHaveLength(1);
    expect((await t.api.listChatMessages(first.chat_id, 1)).items.map((m) => m.text)).toEqual(['one', 'two']);
  });

  it('sendToChatName: finds the chat by exact name; another spelling is not_found', async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    const { chat_id } = await t.sim.receive({ from: '+4915110000001', to: A, text: 'Hi', contact_name: 'Alice' });
    const sent = await t.api.sendToChatName({ chat_name: 'Alice', text: 'Hello Alice' });
    expect(sent.chat_id).toBe(chat_id);
    expect(await t.api.getMessage(sent.message_uid)).toMatchObject({ contact_phone: '+4915110000001', messenger_account_phone: A });
    await expectSvcError(() => t.api.sendToChatName({ chat_name: 'alice', text: 'x' }), 'not_found');
    await expectSvcError(() => t.api.sendToChatName({ chat_name: 'Bob', text: 'x' }), 'not_found');
  });

  it("sendToChatName: the chat's own account sends even after another account connected (docs/api-behaviour.md)", async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    const { chat_id } = await t.sim.receive({ from: '+4915110000001', to: A, text: 'Hi', contact_name: 'Alice' });
    t.clock.advance(1000);
    await t.sim.connect({ phone: B });
    const sent = await t.api.sendToChatName({ chat_name: 'Alice', text: 'Hello again' });
    expect(sent.chat_id).toBe(chat_id);
    expect((await t.api.getMessage(sent.message_uid)).messenger_account_phone).toBe(A);
    expect((await t.api.listChats(1)).items).toHaveLength(1);
  });

  it("sendToChat: by id; a chat of another workspace is not_found", async () => {
    const t = await bareWorkspace();
    await t.sim.connect({ phone: A });
    const { chat_id } = await t.api.sendToPhone({ phone: '+14155550123', text: 'one' });
    expect((await t.api.sendToChat(chat_id, { text: 'two' })).chat_id).toBe(chat_id);
    const other = t.engine.workspace(t.local.workspace_id);
    await expectSvcError(() => other.sendToChat(chat_id, { text: 'intruder' }), 'not_found');
    expect((await t.api.listChatMessages(chat_id, 1)).items).toHaveLength(2);
  });
});

describe('default sender ties', () => {
  it('connectAccount: reconnecting in the same millisecond still makes the account the default sender', async () => {
    const t = await testEngine();
    await t.sim.connect({ phone: '+15550002001' });
    await t.sim.connect({ phone: '+15550002002' });
    await t.sim.connect({ phone: '+15550002001' });
    const sent = await t.api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    expect((await t.api.getMessage(sent.message_uid)).messenger_account_phone).toBe('+15550002001');
  });
});
