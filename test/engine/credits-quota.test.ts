import { describe, expect, it } from 'vitest';
import { countRows, expectSvcError, ledgerSum } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';
import { quotaPeriod } from '../../src/engine/credits.js';

const ACCOUNT = '+15550002001';

/** A workspace with a small quota and one connected account. */
function smallQuota(quota: number) {
  const t = testEngine();
  const ws = t.engine.admin.createWorkspace({ name: 'Small', quota });
  t.engine.sim(ws.workspace_id).connect({ phone: ACCOUNT });
  return { ...t, ws: ws.workspace_id, api: t.engine.workspace(ws.workspace_id) };
}

const snapshot = (t: ReturnType<typeof smallQuota>) => ({
  messages: countRows(t.db, 'messages'),
  jobs: countRows(t.db, 'jobs'),
  chats: countRows(t.db, 'chats'),
  labels: countRows(t.db, 'labels'),
  ledger: countRows(t.db, 'credit_ledger'),
  used: t.api.getWorkspace().messaging_quota.used,
});

describe('credits: quota', () => {
  it('sendToPhone: quota exhausted -> quota_exceeded 403 and nothing written', () => {
    const t = smallQuota(1);
    t.api.sendToPhone({ phone: '+14155550123', text: 'first' });
    const before = snapshot(t);
    const error = expectSvcError(() => t.api.sendToPhone({ phone: '+14155550124', text: 'second', label: 'New' }), 'quota_exceeded');
    expect(error.status).toBe(403);
    expect(snapshot(t)).toEqual(before);
    expect(before.used).toBe(1);
  });

  it('sendToPhone: a 2-credit message with 1 credit left is refused, a 1-credit one still fits', () => {
    const t = smallQuota(1);
    const file = t.api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('x') });
    const before = snapshot(t);
    expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'Hi', file_uid: file.uid }), 'quota_exceeded');
    expect(snapshot(t)).toEqual(before);
    expect(t.api.sendToPhone({ phone: '+14155550123', file_uid: file.uid }).credits).toBe(1);
    expect(t.api.getWorkspace().messaging_quota).toMatchObject({ used: 1, remaining: 0 });
  });

  it('sendToChat: quota exhausted on an existing chat writes nothing either', () => {
    const t = smallQuota(1);
    const { chat_id } = t.api.sendToPhone({ phone: '+14155550123', text: 'first' });
    const before = snapshot(t);
    expectSvcError(() => t.api.sendToChat(chat_id, { text: 'again', label: 'VIP' }), 'quota_exceeded');
    expect(snapshot(t)).toEqual(before);
    expect(t.api.getChat(chat_id).labels).toEqual([]);
  });

  it('quota period: rolls over after a month and used resets', () => {
    const t = smallQuota(2);
    const start = t.api.getWorkspace().messaging_quota;
    t.api.sendToPhone({ phone: '+14155550123', text: 'a' });
    t.api.sendToPhone({ phone: '+14155550123', text: 'b' });
    expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'c' }), 'quota_exceeded');
    t.clock.set(Date.parse(start.period_end) - 1);
    expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'c' }), 'quota_exceeded');
    t.clock.set(Date.parse(start.period_end));
    const next = t.api.getWorkspace().messaging_quota;
    expect(next).toMatchObject({ used: 0, remaining: 2, period_start: start.period_end });
    expect(Date.parse(next.period_end)).toBeGreaterThan(Date.parse(start.period_end));
    t.api.sendToPhone({ phone: '+14155550123', text: 'c' });
    expect(t.api.getWorkspace().messaging_quota.used).toBe(1);
    expect(ledgerSum(t.db, t.ws)).toBe(1);
  });

  it('quota period: a message of the old period failing in the new one does not free credits of the new period', async () => {
    const t = smallQuota(1);
    t.engine.sim(t.ws).setUnreachable('+14155550999', true);
    const old = t.api.sendToPhone({ phone: '+14155550999', text: 'queued last month' });
    t.clock.set(Date.parse(t.api.getWorkspace().messaging_quota.period_end));
    t.api.sendToPhone({ phone: '+14155550123', text: 'this month' });
    await t.engine.workers.runDue();
    expect(t.api.getMessage(old.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'unreachable' });
    expect(t.api.getWorkspace().messaging_quota.used).toBe(1);
    expect(ledgerSum(t.db, t.ws)).toBe(1);
    expectSvcError(() => t.api.sendToPhone({ phone: '+14155550123', text: 'over' }), 'quota_exceeded');
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
