/**
 * An unspaced account (Business plan, interval 0) has several of its messages claimed at once and handed to
 * the network one after the other, or in one call where the driver takes runs (src/workers/send-dispatcher.ts,
 * src/store/send-queue-store.ts): on both stores they leave in acceptance order, a spaced account still sends
 * one per slot, and a message (or a run) the network could not take for a passing reason stops its account's
 * run there, so nothing overtakes it.
 */
import { describe, expect, it, vi } from 'vitest';
import type { DeliveryOutcome, DeliveryRequest } from '../../src/network/driver.js';
import { FakeClock } from '../../src/wire/clock.js';
import { SvcError } from '../../src/wire/errors.js';
import { query } from '../../src/store/sql.js';
import { RecordingSim } from '../support/engine-fixtures.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';
import { fixedRandom, testEngine } from '../support/test-engine.js';

const pgUrl = postgresForThisFile('unspaced');

/**
 * The sim network handing messages over one at a time (as a driver without `deliverRun`), refusing chosen
 * messages once with the store's passing `unavailable`.
 */
class FlakySim extends RecordingSim {
  override deliverRun = undefined;
  readonly refuseOnce = new Set<string>();
  /** Every hand-over, refused ones included. */
  readonly attempts: string[] = [];
  /** Called at each hand-over, before it (to look at the queue while a claim's run is under way). */
  beforeHandOver: (request: DeliveryRequest) => Promise<void> = async () => undefined;
  override async deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
    this.attempts.push(request.messageUid);
    await this.beforeHandOver(request);
    if (this.refuseOnce.delete(request.messageUid)) throw new SvcError('unavailable', 'the store is busy');
    return super.deliver(request);
  }
}

const SPACED = '+15550000001';
const JOBS_OF_WORKSPACE = query<{ n: number }>(
  `SELECT COUNT(*) AS n FROM jobs j JOIN messages m ON m.id = j.ref_id WHERE j.kind = 'send' AND m.workspace_id = @ws`,
);
let accountNumber = 7000;

/** The sim network as it is (runs in one step), counting its runs and refusing the next one when asked. */
class RunSim extends RecordingSim {
  readonly runs: string[][] = [];
  refuseNextRun = false;
  protected override async handOver(requests: readonly DeliveryRequest[]): Promise<DeliveryOutcome[]> {
    if (requests.length > 1) {
      this.runs.push(requests.map((r) => r.messageUid));
      if (this.refuseNextRun) {
        this.refuseNextRun = false;
        throw new SvcError('unavailable', 'the store is busy');
      }
    }
    return super.handOver(requests);
  }
}

describe.each(sqliteAndPostgres(() => pgUrl()))('unspaced runs on %s', (store, open) => {
  async function setUp<Network extends RecordingSim = FlakySim>(
    makeNetwork: (database: ReturnType<typeof open>, clock: FakeClock) => Network = (database, clock) => new FlakySim(database.sql, clock) as unknown as Network,
  ) {
    const clock = new FakeClock();
    const database = open();
    const network = makeNetwork(database, clock);
    const t = await testEngine({ database, clock, network, random: fixedRandom(0.5) });
    // A Business workspace sending unspaced, beside the local (spaced) one.
    const ws = (await t.engine.admin.createWorkspace({ name: `Unspaced ${Date.now()}`, quota: 1000 })).workspace_id;
    await t.engine.admin.updateWorkspace(ws, { plan: 'business', send_interval_ms: 0 });
    // Its own account phone in each test: the PostgreSQL database is shared by the tests of this file.
    const unspaced = `+1555${String(Date.now()).slice(-3)}${String((accountNumber += 1))}`;
    await t.engine.sim(ws).connect({ phone: unspaced });
    const uniquePrefix = `+1415${String(Date.now()).slice(-5)}`;
    const accepted: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      accepted.push((await t.engine.workspace(ws).sendToPhone({ phone: `${uniquePrefix}${String(i).padStart(2, '0')}`, text: `m${i}` })).message_uid);
    }
    const spaced: string[] = [];
    for (let i = 0; i < 3; i += 1) spaced.push((await t.api.sendToPhone({ phone: `+1415555010${i}`, text: `s${i}` })).message_uid);
    const deliveredFrom = (phone: string) => network.delivered.filter((r) => r.accountPhone === phone).map((r) => r.messageUid);
    return { t, clock, network, ws, accepted, spaced, deliveredFrom, unspaced };
  }

  it('one runDue sends every message of the unspaced account, in acceptance order, 8 to a claim; the spaced one sends one', async () => {
    const { t, network, ws, accepted, spaced, deliveredFrom, unspaced } = await setUp();
    try {
      // When the first message is handed over, its claim has taken the next 7 too (Sending), not the ninth.
      let statusesAtFirst: string[] = [];
      network.beforeHandOver = async (request) => {
        if (request.messageUid !== accepted[0]) return;
        const api = t.engine.workspace(ws);
        statusesAtFirst = await Promise.all(accepted.slice(0, 9).map(async (uid) => (await api.getMessage(uid)).status));
      };
      expect(await t.engine.workers.runDue()).toBe(21);
      expect(statusesAtFirst).toEqual([...Array<string>(8).fill('Sending'), 'Pending']);
      expect(deliveredFrom(unspaced)).toEqual(accepted);
      expect(deliveredFrom(SPACED)).toEqual(spaced.slice(0, 1));
    } finally {
      await t.engine.close();
    }
  });

  it('a claim right after a batch that left work behind skips the look for due work on PostgreSQL (a round trip); SQLite looks first each time', async () => {
    const { t, ws, accepted, deliveredFrom, unspaced } = await setUp();
    try {
      const looks = vi.spyOn(t.ctx.stores.jobs, 'nextSendTime');
      await t.engine.workers.runDue();
      expect(deliveredFrom(unspaced)).toEqual(accepted);
      // Each completion removed its jobs (with its read of the messages, one statement on PostgreSQL).
      expect((await t.ctx.database.sql.get(JOBS_OF_WORKSPACE, { ws }))!.n).toBe(0);
      expect(new Set(await Promise.all(accepted.map(async (uid) => (await t.engine.workspace(ws).getMessage(uid)).status)))).toEqual(new Set(['Sent']));
      // Claims of 8 unspaced messages (and the spaced head), 8 and 4. The last took every message due (its run was
      // not cut at 8): no claim follows it to find nothing.
      expect(looks).toHaveBeenCalledTimes(store === 'PostgreSQL' ? 1 : 3);
    } finally {
      await t.engine.close();
    }
  });

  it('the completions tell message:sent:new, and only that, to the workspace subscribed to it alone', async () => {
    const { t, ws, accepted } = await setUp();
    try {
      await t.engine.webhooks(ws).create({ event_type: 'message:sent:new', url: 'https://example.com/hook' });
      await t.engine.workers.runDue();
      const rows = await t.ctx.database.sql.all(query<{ event_type: string; payload: string }>(
        `SELECT d.event_type, d.payload FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
         WHERE s.workspace_id = @ws ORDER BY d.id`,
      ), { ws });
      expect(rows.map((row) => row.event_type)).toEqual(accepted.map(() => 'message:sent:new'));
      expect(rows.map((row) => (JSON.parse(row.payload) as { message: { message_uid: string } }).message.message_uid)).toEqual(accepted);
    } finally {
      await t.engine.close();
    }
  });

  it('a message refused for a passing reason stops its run: it goes again first, and the order holds', async () => {
    const { t, network, ws, accepted, deliveredFrom, unspaced } = await setUp();
    try {
      network.refuseOnce.add(accepted[2]!);
      await t.engine.workers.runDue();
      // Had the run gone on, the messages after the refused one would have been handed over before it.
      const attempts = network.attempts.filter((uid) => accepted.includes(uid));
      expect(attempts).toEqual([...accepted.slice(0, 3), ...accepted.slice(2)]);
      expect(deliveredFrom(unspaced)).toEqual(accepted);
      const api = t.engine.workspace(ws);
      for (const uid of accepted) expect((await api.getMessage(uid)).status).toBe('Sent');
    } finally {
      await t.engine.close();
    }
  });

  it('a driver that takes runs gets each account\'s run in one call (the sim: one statement), in order; a run refused for a passing reason goes again whole', async () => {
    const { t, network, ws, accepted, deliveredFrom, unspaced } = await setUp((database, clock) => new RunSim(database.sql, clock));
    try {
      network.refuseNextRun = true;
      await t.engine.workers.runDue();
      // A claim that got only retries leaves them to the next poll (on PostgreSQL, where this file's earlier tests
      // spent the spaced account's slot; on SQLite the spaced head was claimed with the run, so it went again at once).
      await t.engine.workers.runDue();
      // The first run of 8 refused, then taken again whole: nothing of it went out of order or twice.
      expect(network.runs).toEqual([accepted.slice(0, 8), accepted.slice(0, 8), accepted.slice(8, 16), accepted.slice(16)]);
      expect(deliveredFrom(unspaced)).toEqual(accepted);
      const api = t.engine.workspace(ws);
      for (const uid of accepted) expect((await api.getMessage(uid)).status).toBe('Sent');
    } finally {
      await t.engine.close();
    }
  });
});
