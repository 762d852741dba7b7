import { describe, expect, it } from 'vitest';
import { query } from '../../src/store/sql.js';
import { countRows, expectSvcError, messageIdOf, recordingSink } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

const LOCAL_SENDER = '+15550000001';
const CREATE_OUTBOX = query('CREATE TABLE IF NOT EXISTS test_outbox (type TEXT NOT NULL)');
const INSERT_OUTBOX = query('INSERT INTO test_outbox (type) VALUES (@type)');

async function withSink() {
  const sink = recordingSink();
  const t = await testEngine({ events: sink.parts });
  sink.clear();
  return { ...t, sink };
}

describe('events: outgoing', () => {
  it('sendToPhone: chat:created + chat:sent:created at acceptance for a new contact, none for the second message', async () => {
    const { api, sink } = await withSink();
    const first = await api.sendToPhone({ phone: '+14155550123', text: 'one' });
    expect(sink.events).toEqual([
      { type: 'chat:created', workspaceId: expect.any(Number), chatId: first.chat_id },
      { type: 'chat:sent:created', workspaceId: expect.any(Number), chatId: first.chat_id },
    ]);
    sink.clear();
    await api.sendToPhone({ phone: '+14155550123', text: 'two' });
    expect(sink.events).toEqual([]);
  });

  it('runDue: message:sent:new + message:new when the dispatcher sends, nothing when it fails', async () => {
    const { api, engine, sim, sink, clock, db } = await withSink();
    await sim.setUnreachable('+14155550999', true);
    const lost = await api.sendToPhone({ phone: '+14155550999', text: 'lost' });
    sink.clear();
    expect(await engine.workers.runDue()).toBe(1);
    expect((await api.getMessage(lost.message_uid)).status).toBe('Failed');
    expect(sink.events).toEqual([]);

    clock.advance(2000);
    const sent = await api.sendToChat(lost.chat_id, { text: 'retry' });
    await sim.setUnreachable('+14155550999', false);
    expect(sink.events).toEqual([]);
    expect(await engine.workers.runDue()).toBe(1);
    const messageId = messageIdOf(db, sent.message_uid);
    expect(sink.events).toEqual([
      { type: 'message:sent:new', workspaceId: expect.any(Number), messageId },
      { type: 'message:new', workspaceId: expect.any(Number), messageId },
    ]);
  });

  it('sendToPhone: a send refused for quota leaves nothing in a transactional outbox', async () => {
    const sink = recordingSink();
    const t = await testEngine({
      events: () => ({
        // Written through the transaction the event happened in, so it rolls back with it.
        emit: async (tx, event) => {
          sink.events.push(event);
          await tx.sql.run(CREATE_OUTBOX);
          await tx.sql.run(INSERT_OUTBOX, { type: event.type });
        },
      }),
    });
    t.db.exec('CREATE TABLE IF NOT EXISTS test_outbox (type TEXT NOT NULL)');
    await t.engine.admin.updateWorkspace(t.local.workspace_id, { quota: 0 });
    const before = countRows(t.db, 'test_outbox');
    sink.clear();
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'over quota' }), 'quota_exceeded');
    expect(countRows(t.db, 'test_outbox')).toBe(before);
    // A sink that is not transactional still hears the rolled-back chat:created (reported as a design issue).
    expect(sink.types()).toEqual(['chat:created', 'chat:sent:created']);
  });
});

describe('events: incoming, chats and accounts', () => {
  it('sim receive: chat:created + chat:received:created + message:received:new + message:new', async () => {
    const { sim, sink } = await withSink();
    const got = await sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'Hallo' });
    expect(sink.types()).toEqual(['chat:created', 'chat:received:created', 'message:received:new', 'message:new']);
    expect(sink.events.filter((e) => 'chatId' in e).map((e) => ('chatId' in e ? e.chatId : 0))).toEqual([got.chat_id, got.chat_id]);
    sink.clear();
    await sim.receive({ from: '+4915112345678', to: LOCAL_SENDER, text: 'again' });
    expect(sink.types()).toEqual(['message:received:new', 'message:new']);
  });

  it('updateChat: chat:assigned on a new responsible, chat:unassigned on "", nothing when unchanged', async () => {
    const { api, sink } = await withSink();
    const { chat_id } = await api.sendToPhone({ phone: '+14155550123', text: 'x' });
    sink.clear();
    expect(await api.updateChat(chat_id, { responsible: 'ann@example.com' })).toMatchObject({ responsible_email: 'ann@example.com' });
    await api.updateChat(chat_id, { responsible: 'ann@example.com' });
    await api.updateChat(chat_id, { name: 'Renamed' });
    await api.updateChat(chat_id, { responsible: '' });
    await api.updateChat(chat_id, { responsible: '' });
    expect(sink.events).toEqual([
      { type: 'chat:assigned', workspaceId: expect.any(Number), chatId: chat_id },
      { type: 'chat:unassigned', workspaceId: expect.any(Number), chatId: chat_id },
    ]);
  });

  it('sim connect, suspend, resume, disconnect: messenger:account:* events', async () => {
    const { sim, sink, api } = await withSink();
    await sim.connect({ phone: '+15550007001' });
    await sim.suspend('+15550007001');
    await sim.resume('+15550007001');
    await sim.disconnect('+15550007001');
    await expect(sim.resume('+15550007001')).rejects.toThrow();
    expect(sink.types()).toEqual([
      'messenger:account:connected',
      'messenger:account:suspended',
      'messenger:account:resumed',
      'messenger:account:disconnected',
    ]);
    const id = (await api.listAccounts()).items.find((a) => a.phone === '+15550007001')?.id;
    expect(sink.events.every((e) => 'accountId' in e && e.accountId === id)).toBe(true);
  });
});
