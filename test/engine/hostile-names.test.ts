import { describe, expect, it, vi } from 'vitest';
import { MAX_CHAT_NAME } from '../../src/engine/chats.js';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

/**
 * Every chat store the engine makes (the autocommit one and each write transaction's) counts its namesake
 * lookups here: a send looks names up through its transaction's store, which no spy on `ctx.stores` sees.
 */
const nameLookups = vi.hoisted(() => ({ insertUnlessTaken: 0, highestNameSuffix: 0 }));
vi.mock('../../src/store/chat-store.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/store/chat-store.js')>();
  return {
    ...actual,
    createChatStore: (...args: Parameters<typeof actual.createChatStore>) => {
      const store = actual.createChatStore(...args);
      return {
        ...store,
        insertUnlessTaken: (...call: Parameters<typeof store.insertUnlessTaken>) => {
          nameLookups.insertUnlessTaken += 1;
          return store.insertUnlessTaken(...call);
        },
        highestNameSuffix: (...call: Parameters<typeof store.highestNameSuffix>) => {
          nameLookups.highestNameSuffix += 1;
          return store.highestNameSuffix(...call);
        },
      };
    },
  };
});

const contact = (n: number) => `+1415${String(5_000_000 + n)}`;

describe('hostile names and phones', () => {
  it('sendToPhone: a phone with a control character is a validation_error, and no second chat appears', async () => {
    const t = await testEngine();
    await t.api.sendToPhone({ phone: '+14155550123', text: 'first' });
    for (const phone of ['+14155550123\n', '+1415555\u00000123', '\t+14155550123', '+14155550123\r', '+14155550123\u0085']) {
      await expectSvcError(() => t.api.sendToPhone({ phone, text: 'again' }), 'validation_error');
    }
    await expectSvcError(() => t.sim.connect({ phone: '+15550002222\n' }), 'validation_error');
    expect((await t.api.listChats(1)).items).toHaveLength(1);
  });

  it(`chat names: at most ${MAX_CHAT_NAME} characters on send, rename and to_chat_name alike`, async () => {
    const t = await testEngine();
    const long = 'n'.repeat(MAX_CHAT_NAME + 1);
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'x', chat_name: long }), 'validation_error');
    await expectSvcError(() => t.api.sendToChatName({ chat_name: long, text: 'x' }), 'validation_error');
    const { chat_id } = await t.api.sendToPhone({ phone: '+14155550123', text: 'x', chat_name: 'n'.repeat(MAX_CHAT_NAME) });
    await expectSvcError(() => t.api.updateChat(chat_id, { name: long }), 'validation_error');
    expect((await t.api.getChat(chat_id)).name).toHaveLength(MAX_CHAT_NAME);
    // An existing chat still refuses an oversized chat_name rather than ignoring it.
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'y', chat_name: long }), 'validation_error');
  });

  it('a taken chat name gets the next "Name (N)" in two tries and one indexed lookup, whatever the number of namesakes', async () => {
    const t = await testEngine();
    for (let n = 0; n < 300; n += 1) await t.api.sendToPhone({ phone: contact(n), text: 'x', chat_name: 'Alice' });
    const names = (await t.api.listChats(1)).items.map((chat) => chat.name);
    expect(names.slice(0, 4)).toEqual(['Alice', 'Alice (2)', 'Alice (3)', 'Alice (4)']);

    nameLookups.insertUnlessTaken = 0;
    nameLookups.highestNameSuffix = 0;
    const result = await t.api.sendToPhone({ phone: contact(1000), text: 'x', chat_name: 'Alice' });
    expect((await t.api.getChat(result.chat_id)).name).toBe('Alice (301)');
    expect(nameLookups).toEqual({ insertUnlessTaken: 2, highestNameSuffix: 1 });

    // Names that merely start like the base do not count: "Alice (x)", "Alice (3) b", "Alice (2".
    for (const [i, name] of ['Bob', 'Bob (x)', 'Bob (7) b', 'Bob (9'].entries()) await t.api.sendToPhone({ phone: contact(2000 + i), text: 'x', chat_name: name });
    const bob = await t.api.sendToPhone({ phone: contact(3000), text: 'x', chat_name: 'Bob' });
    expect((await t.api.getChat(bob.chat_id)).name).toBe('Bob (2)');
  });

  it('the namesake lookup is a search of the (workspace_id, name) index, not a scan', async () => {
    const t = await testEngine();
    const plan = t.db
      .prepare(`EXPLAIN QUERY PLAN SELECT MAX(name) FROM chats WHERE workspace_id = 1 AND name >= 'A (' AND name < 'A )'`)
      .all() as Array<{ detail: string }>;
    expect(plan.map((row) => row.detail).join(' ')).toMatch(/SEARCH chats USING (COVERING )?INDEX .*workspace_id=\? AND name>\? AND name<\?/);
  });

  it('a page of chats reads them in id order from the (workspace_id, id) index: no sort of every chat of the workspace', async () => {
    const t = await testEngine();
    const plan = t.db
      .prepare(`EXPLAIN QUERY PLAN SELECT c.* FROM chats c JOIN messenger_accounts a ON a.id = c.messenger_account_id
        WHERE c.workspace_id = 1 ORDER BY c.id LIMIT 101 OFFSET 0`)
      .all() as Array<{ detail: string }>;
    const details = plan.map((row) => row.detail).join(' | ');
    expect(details).toMatch(/SEARCH c USING (COVERING )?INDEX chats_workspace_id \(workspace_id=\?\)/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  });
});
