import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import type { NetworkDriver } from '../../src/network/driver.js';
import { SvcError } from '../../src/wire/errors.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { ledgerRows, ledgerSum, messageIdOf, StalledSim } from '../support/engine-fixtures.js';
import { fixedRandom, testEngine } from '../support/test-engine.js';

const LOCAL_SENDER = '+15550000001';

describe('credits: restored when a send fails', () => {
  it.each(['+0123', '12345'])('dispatcher: invalid number %s -> Failed invalid_number, credits restored', async (phone) => {
    const { api, engine, db, local } = await testEngine();
    const sent = await api.sendToPhone({ phone, text: 'Hi' });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(1);
    expect(await engine.workers.runDue()).toBe(1);
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'invalid_number', sent_at: null });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
    expect(ledgerRows(db, messageIdOf(db, sent.message_uid), 'restore')).toBe(1);
    expect(ledgerSum(db, local.workspace_id)).toBe(0);
  });

  it('dispatcher: unreachable contact -> Failed unreachable, both credits of a text+file message restored', async () => {
    const { api, engine, sim } = await testEngine();
    const file = await api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('x') });
    await sim.setUnreachable('+14155550999', true);
    const sent = await api.sendToPhone({ phone: '+14155550999', text: 'Hi', file_uid: file.uid });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(2);
    await engine.workers.runDue();
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'unreachable' });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
  });

  it('dispatcher: account disconnected after acceptance -> Failed account_not_connected, credits restored', async () => {
    const { api, engine, sim } = await testEngine();
    const sent = await api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    await sim.disconnect(LOCAL_SENDER);
    await engine.workers.runDue();
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'account_not_connected' });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
  });

  it('dispatcher: a driver that throws -> Failed network_error, credits restored', async () => {
    const throwing: NetworkDriver = {
      name: 'broken',
      start: () => undefined,
      deliver: () => {
        throw new Error('socket hang up');
      },
      stop: async () => undefined,
    };
    const { api, engine } = await testEngine({ network: throwing });
    const sent = await api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    await engine.workers.runDue();
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'network_error' });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
  });

  // What each store throws when it is busy: PostgreSQL's layer an SvcError, better-sqlite3 its own SqliteError.
  it.each([
    ['unavailable (PostgreSQL)', () => new SvcError('unavailable', 'the database is busy: another process holds its write lock')],
    ['SQLITE_BUSY', () => new Database.SqliteError('database is locked', 'SQLITE_BUSY')],
  ])('dispatcher: a driver that finds the store busy (%s) -> tried again later, not Failed; its credit kept', async (_, busyError) => {
    let calls = 0;
    const busyOnce: NetworkDriver = {
      name: 'busy-once',
      start: () => undefined,
      deliver: async () => {
        calls += 1;
        if (calls === 1) throw busyError();
        return { status: 'sent', networkMessageId: 'net-1' };
      },
      stop: async () => undefined,
    };
    const { api, engine, clock } = await testEngine({ network: busyOnce });
    const sent = await api.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    await engine.workers.runDue();
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Sending' });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(1);
    clock.advance(3_000); // the account's send spacing
    await engine.workers.runDue();
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Sent' });
    expect((await api.getWorkspace()).messaging_quota.used).toBe(1);
    expect(calls).toBe(2);
  });

  it('dispatcher: a message is restored once, even when a stalled process finishes it again', async () => {
    const clock = new FakeClock();
    const db = openDatabase(':memory:');
    // Two engines on one connection, as two processes on one database: one stalls inside deliver.
    const database = new SqliteDatabase(db);
    const stalled = new StalledSim(database.sql, clock, false);
    const zombie = createEngine({ database, clock, random: fixedRandom(), network: stalled });
    const local = await zombie.ensureLocalWorkspace();
    const api = zombie.workspace(local.workspace_id);
    const survivor = createEngine({ database, clock, random: fixedRandom() });
    await zombie.sim(local.workspace_id).setUnreachable('+14155550999', true);
    const sent = await api.sendToPhone({ phone: '+14155550999', text: 'Hi' });

    const zombieRun = zombie.workers.runDue();
    await vi.waitFor(() => expect(stalled.requests).toHaveLength(1));
    clock.advance(zombie.context.config.sendLeaseMs);
    expect(await survivor.workers.runDue()).toBe(1);
    expect(await api.getMessage(sent.message_uid)).toMatchObject({ status: 'Failed', failure_reason: 'unreachable' });
    stalled.release();
    await zombieRun;

    expect((await api.getMessage(sent.message_uid)).failure_reason).toBe('unreachable');
    expect(ledgerRows(db, messageIdOf(db, sent.message_uid), 'restore')).toBe(1);
    expect((await api.getWorkspace()).messaging_quota.used).toBe(0);
    expect(ledgerSum(db, local.workspace_id)).toBe(0);
  });
});
