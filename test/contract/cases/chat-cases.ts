/** Chats (docs/api-behaviour.md): list, get, rename, assign and unassign, paging, messages of a chat. */
import { expect, it } from 'vitest';
import type { CaseGroup } from '../contract-cases.js';

export const chatCases: CaseGroup = (target) => {
  it('listChats: lists the chats of the workspace with their fields', async () => {
    const ws = await target().workspace();
    const phone = ws.newPhone();
    const received = await ws.client.sim.receive({ from: phone, to: ws.accountPhone, text: 'Hi', contact_name: 'Frank' });
    const page = await ws.client.listChats();
    expect(page).toMatchObject({ page: 1, has_more_pages: false });
    expect(page.items).toHaveLength(1);
    const chat = page.items[0];
    expect(chat).toMatchObject({
      id: received.chat_id,
      name: 'Frank',
      phone,
      is_group: false,
      messenger_account_phone: ws.accountPhone,
      labels: [],
    });
    // Nobody is responsible yet: the keys are absent, not null.
    expect(chat).not.toHaveProperty('responsible_email');
    expect(chat).not.toHaveProperty('responsible_name');
    expect(chat?.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await ws.client.getChat(received.chat_id)).toEqual(chat);
  });

  it('listChats: a second contact with a taken name becomes "Name (2)"', async () => {
    const ws = await target().workspace();
    await ws.client.sim.receive({ from: ws.newPhone(), to: ws.accountPhone, text: 'Hi', contact_name: 'Grace' });
    const second = await ws.client.sim.receive({ from: ws.newPhone(), to: ws.accountPhone, text: 'Hi', contact_name: 'Grace' });
    expect((await ws.client.getChat(second.chat_id)).name).toBe('Grace (2)');
  });

  it('updateChat: assigns with an e-mail, unassigns with "", and renames', async () => {
    const ws = await target().workspace();
    const { chat_id: chatId } = await ws.client.sim.receive({ from: ws.newPhone(), to: ws.accountPhone, text: 'Hi' });
    const assigned = await ws.client.updateChat(chatId, { responsible: 'heidi@example.com' });
    expect(assigned).toMatchObject({ id: chatId, responsible_email: 'heidi@example.com', responsible_name: 'heidi' });
    expect(await ws.client.getChat(chatId)).toEqual(assigned);

    const renamed = await ws.client.updateChat(chatId, { name: 'Heidi support' });
    expect(renamed).toMatchObject({ name: 'Heidi support', responsible_email: 'heidi@example.com' });

    const unassigned = await ws.client.updateChat(chatId, { responsible: '' });
    expect(unassigned).toMatchObject({ name: 'Heidi support' });
    expect(Object.keys(unassigned)).not.toContain('responsible_email');
    expect(Object.keys(unassigned)).not.toContain('responsible_name');
    expect(await ws.client.updateChat(chatId, {})).toEqual(unassigned);
  });

  it('listChats: 50 a page, has_more_pages while more follow', async () => {
    const ws = await target().workspace();
    const created = new Set<number>();
    for (let i = 0; i < 51; i += 1) {
      const { chat_id: chatId } = await ws.client.sim.receive({ from: ws.newPhone(), to: ws.accountPhone, text: `Hi ${i}` });
      created.add(chatId);
    }
    expect(created.size).toBe(51);
    const first = await ws.client.listChats();
    const second = await ws.client.listChats(2);
    const third = await ws.client.listChats(3);
    expect([first.items.length, first.page, first.has_more_pages]).toEqual([50, 1, true]);
    expect([second.items.length, second.page, second.has_more_pages]).toEqual([1, 2, false]);
    expect([third.items.length, third.has_more_pages]).toEqual([0, false]);
    expect(new Set([...first.items, ...second.items].map((chat) => chat.id))).toEqual(created);
  });

  it('listChatMessages: both directions, 50 a page, has_more_pages while more follow', async () => {
    const ws = await target().workspace();
    const contact = ws.newPhone();
    const uids = new Set<string>();
    const { chat_id: chatId, message_uid: firstUid } = await ws.client.sim.receive({ from: contact, to: ws.accountPhone, text: 'Hi 0' });
    uids.add(firstUid);
    for (let i = 1; i < 50; i += 1) {
      uids.add((await ws.client.sim.receive({ from: contact, to: ws.accountPhone, text: `Hi ${i}` })).message_uid);
    }
    uids.add((await ws.client.sendToChat(chatId, { text: 'Answer' })).message_uid);

    const first = await ws.client.listChatMessages(chatId);
    const second = await ws.client.listChatMessages(chatId, 2);
    expect([first.items.length, first.has_more_pages]).toEqual([50, true]);
    expect([second.items.length, second.page, second.has_more_pages]).toEqual([1, 2, false]);
    const all = [...first.items, ...second.items];
    expect(new Set(all.map((m) => m.uid))).toEqual(uids);
    expect(all.every((m) => m.chat_id === chatId)).toBe(true);
    expect(all.filter((m) => m.direction === 'sent')).toHaveLength(1);
    const incoming = all.find((m) => m.uid === firstUid);
    expect(incoming).toMatchObject({ direction: 'received', status: 'Sent', credits: 0, contact_phone: contact, text: 'Hi 0' });
    // Incoming messages cost nothing.
    expect((await ws.client.getWorkspace()).messaging_quota.used).toBe(1);
  });
};
