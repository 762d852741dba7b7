import { describe, expect, it } from 'vitest';
import { countRows, expectSvcError, ledgerSum } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';
import { quotaPeriod } from '../../src/engine/credits.js';

const ACCOUNT = '+15550002001';

/** A workspace with a small quota and one connected account. */
async function smallQuota(quota: number) {
  const t = await testEngine();
  const ws = await t.engine.admin.createWorkspace({ name: 'Small', quota });
  await t.engine.sim(ws.workspace_id).connect({ phone: ACCOUNT });
  return { ...t, ws: ws.workspace_id, api: t.engine.workspace(ws.workspace_id) };
}

const snapshot = async (t: Awaited<ReturnType<typeof smallQuota>>) => ({
  messages: countRows(t.db, 'messages'),
  jobs: countRows(t.db, 'jobs'),
  chats: countRows(t.db, 'chats'),
  labels: countRows(t.db, 'labels'),
  ledger: countRows(t.db, 'credit_ledger'),
  used: (await t.api.getWorkspace()).messaging_quota.used,
});

describe('credits: quota', () => {
  it('sendToPhone: quota exhausted -> quota_exceeded 403 and nothing written', async () => {
    const t = await smallQuota(1);
    await t.api.sendToPhone({ phone: '+14155550123', text: 'first' });
    const before = await snapshot(t);
    const error = await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550124', text: 'second', label: 'New' }), 'quota_exceeded');
    expect(error.status).toBe(403);
    expect(await snapshot(t)).toEqual(before);
    expect(before.used).toBe(1);
  });

  it('sendToPhone: a 2-credit message with 1 credit left is refused, a 1-credit one still fits', async () => {
    const t = await smallQuota(1);
    const file = await t.api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('x') });
    const before = await snapshot(t);
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'Hi', file_uid: file.uid }), 'quota_exceeded');
    expect(await snapshot(t)).toEqual(before);
    expect((await t.api.sendToPhone({ phone: '+14155550123', file_uid: file.uid })).credits).toBe(1);
    expect((await t.api.getWorkspace()).messaging_quota).toMatchObject({ used: 1, remaining: 0 });
  });

  it('sendToChat: quota exhausted on an existing chat writes nothing either', async () => {
    const t = await smallQuota(1);
    const { chat_id } = await t.api.sendToPhone({ phone: '+14155550123', text: 'first' });
    const before = await snapshot(t);
    await expectSvcError(() => t.api.sendToChat(chat_id, { text: 'again', label: 'VIP' }), 'quota_exceeded');
    expect(await snapshot(t)).toEqual(before);
    expect((await t.api.getChat(chat_id)).labels).toEqual([]);
  });

  it('quota period: rolls over after a month and used resets', async () => {
    const t = await smallQuota(2);
    const start = (await t.api.getWorkspace()).messaging_quota;
    await t.api.sendToPhone({ phone: '+14155550123', text: 'a' });
    await t.api.sendToPhone({ phone: '+14155550123', text: 'b' });
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'c' }), 'quota_exceeded');
    t.clock.set(Date.parse(start.period_end) - 1);
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'c' }), 'quota_exceeded');
    t.clock.set(Date.parse(start.period_end));
    const next = (await t.api.getWorkspace()).messaging_quota;
    expect(next).toMatchObject({ used: 0, remaining: 2, period_start: start.period_end });
    expect(Date.parse(next.period_end)).toBeGreaterThan(Date.parse(start.period_end));
    await t.api.sendToPhone({ phone: '+14155550123', text: 'c' });
    expect((await t.api.getWorkspace()).messaging_quota.used).toBe(1);
    expect(ledgerSum(t.db, t.ws)).toBe(1);
  });

  it('quota period: a message of the old period failing in the new one does not free credits of the new period', async () => {
    const t = await smallQuota(1);
    await t.engine.sim(t.ws).setUnreachable('+14155550999', true);
    const old = await t.api.sendToPhone({ phone: '+14155550999', text: 'queued last month' });
    t.clock.set(Date.parse((await t.api.getWorkspace()).messaging_quota.period_end));
    await t.api.sendToPhone({ phone: '+14155550123', text: 'this month' });
    await t.engine.workers.runDue();
    expect(await t.api.getMessage(old.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'unreachable' });
    expect((await t.api.getWorkspace()).messaging_quota.used).toBe(1);
    expect(ledgerSum(t.db, t.ws)).toBe(1);
    await expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'over' }), 'quota_exceeded');
  });
});

describe('quota periods', () => {
  it('quotaPeriod: a workspace created on the 31st keeps its day, clamped in shorter months', () => {
    const anchor = Date.UTC(2027, 0, 31, 10, 0, 0);
    const ends = [];
    let at = anchor;
    for (let i = 0; i < 4; i += 1) {
      const period = quotaPeriod(anchor, at);
      ends.push(new Date(period.end).toISOString().slice(0, 10));
      at = period.end;
    }
    expect(ends).toEqual(['2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31']);
    expect(quotaPeriod(anchor, Date.UTC(2027, 2, 30)).start).toBe(Date.UTC(2027, 1, 28, 10, 0, 0));
  });
});
