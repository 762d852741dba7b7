import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { expectSvcError, RecordingSim } from '../support/engine-fixtures.js';
import { fixedRandom, testEngine } from '../support/test-engine.js';

type TestEngine = Awaited<ReturnType<typeof testEngine>>;

const statusOf = async (t: TestEngine, uid: string) => (await t.api.getMessage(uid)).status;

/** Sends two messages on the Local sender and returns the gap after which the second one leaves. */
async function secondLeavesAfter(t: TestEngine, gap: number): Promise<void> {
  const first = await t.api.sendToPhone({ phone: '+14155550001', text: 'one' });
  const second = await t.api.sendToPhone({ phone: '+14155550002', text: 'two' });
  expect(await t.engine.workers.runDue()).toBe(1);
  expect(await statusOf(t, first.message_uid)).toBe('Sent');
  t.clock.advance(gap - 1);
  expect(await t.engine.workers.runDue()).toBe(0);
  expect(await statusOf(t, second.message_uid)).toBe('Pending');
  t.clock.advance(1);
  expect(await t.engine.workers.runDue()).toBe(1);
  expect(await statusOf(t, second.message_uid)).toBe('Sent');
}

describe('send queue: spacing per account', () => {
  it('runDue: the first message goes at once, the second not before 2000 ms (random 0.5)', async () => {
    await secondLeavesAfter(await testEngine({ random: fixedRandom(0.5) }), 2000);
  });

  it('runDue: random 0 spaces by 1500 ms, the lower bound', async () => {
    await secondLeavesAfter(await testEngine({ random: fixedRandom(0) }), 1500);
  });

  it('runDue: random just under 1 spaces by 2500 ms, the upper bound', async () => {
    await secondLeavesAfter(await testEngine({ random: fixedRandom(0.9999999) }), 2500);
  });

  it('runDue: two accounts do not wait for each other', async () => {
    const t = await testEngine();
    await t.sim.connect({ phone: '+15550003001' });
    const a = await t.api.sendToPhone({ phone: '+14155550001', text: 'from A', messenger_account_phone: '+15550000001' });
    const b = await t.api.sendToPhone({ phone: '+14155550001', text: 'from B', messenger_account_phone: '+15550003001' });
    expect(await t.engine.workers.runDue()).toBe(2);
    expect([await statusOf(t, a.message_uid), await statusOf(t, b.message_uid)]).toEqual(['Sent', 'Sent']);
  });

  it('runDue: the Business plan interval spaces by exactly that interval', async () => {
    const t = await testEngine({ random: fixedRandom(0.99) });
    const ws = await t.engine.admin.updateWorkspace(t.local.workspace_id, { plan: 'business', send_interval_ms: 500 });
    expect(ws).toMatchObject({ plan: 'business', send_interval_ms: 500 });
    await secondLeavesAfter(t, 500);
  });

  it('admin.updateWorkspace: a send interval on the standard plan is permission_denied and changes nothing', async () => {
    const t = await testEngine();
    const error = await expectSvcError(() => t.engine.admin.updateWorkspace(t.local.workspace_id, { send_interval_ms: 500 }), 'permission_denied');
    expect(error.status).toBe(403);
    expect(await t.api.getWorkspace()).toMatchObject({ plan: 'standard', send_interval_ms: null });
  });

  it('runDue: messages of one account leave in acceptance order, whatever their contacts', async () => {
    const clock = new FakeClock();
    const database = new SqliteDatabase(openDatabase(':memory:'));
    const network = new RecordingSim(database.sql, clock);
    const t = await testEngine({ database, clock, network });
    await t.sim.connect({ phone: '+15550003001' });
    const accepted: string[] = [];
    for (const phone of ['+14155550009', '+14155550001', '+14155550005', '+14155550003']) {
      accepted.push((await t.api.sendToPhone({ phone, text: phone, messenger_account_phone: '+15550000001' })).message_uid);
      await t.api.sendToPhone({ phone, text: 'other account', messenger_account_phone: '+15550003001' });
    }
    for (let i = 0; i < 4; i += 1) {
      await t.engine.workers.runDue();
      clock.advance(2000);
    }
    const fromLocal = network.delivered.filter((r) => r.accountPhone === '+15550000001').map((r) => r.messageUid);
    expect(fromLocal).toEqual(accepted);
    expect(network.delivered).toHaveLength(8);
  });
});
