/**
 * A page of chats carries each chat's labels, on both stores: one store read per page (the page with its
 * labels: one statement, chat-store's PAGE_WITH_LABELS), none per chat.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { STORES, storeTestEngine } from '../support/store-engine.js';

describe.each(STORES)('listing chats on %s', (store) => {
  let drop: (() => Promise<void>) | undefined;
  afterEach(async () => drop?.());

  it('every chat of both pages has exactly its own labels, in name order; a chat without labels has none', async () => {
    const t = await storeTestEngine(store);
    drop = t.drop;
    const expected = new Map<number, string[]>();
    for (let i = 0; i < 55; i += 1) {
      const phone = `+1415555${String(1000 + i)}`;
      const labels = i % 3 === 0 ? [] : i % 3 === 1 ? ['Lead'] : ['VIP', 'Lead'];
      const { chat_id } = await t.api.sendToPhone({ phone, text: 'hi', ...(labels[0] === undefined ? {} : { label: labels[0] }) });
      if (labels[1] !== undefined) await t.api.sendToChat(chat_id, { text: 'again', label: labels[1] });
      expected.set(chat_id, [...labels].sort());
    }
    const perChat = vi.spyOn(t.ctx.stores.chats, 'labelsOf');
    const perPage = vi.spyOn(t.ctx.stores.chats, 'pageWithLabels');
    const first = await t.api.listChats(1);
    const second = await t.api.listChats(2);
    expect(perChat).not.toHaveBeenCalled();
    expect(perPage).toHaveBeenCalledTimes(2);
    expect(first.has_more_pages).toBe(true);
    expect(first.items.length + second.items.length).toBe(55);
    for (const chat of [...first.items, ...second.items]) expect(chat.labels, `chat ${chat.id}`).toEqual(expected.get(chat.id));
  });
});
