/**
 * The round trips of a send's (and an incoming message's) way to its webhook on PostgreSQL, counted on the
 * wire: a statement sent while none of its connection's awaits an answer starts a round trip; one sent
 * meanwhile (pipelined) rides along. Every stage is a transaction of a few round trips, and each costs a
 * request its latency (a managed database a millisecond away: a millisecond each), so a new one should be a
 * choice, not an accident.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { createSendDispatcher } from '../../src/workers/send-dispatcher.js';
import { openDeliveryOutbox } from '../../src/store/webhooks/delivery-outbox.js';
import { generateMessageId } from '../../src/webhooks/signature.js';
import { DEFAULT_ATTEMPT_RULES } from '../support/webhook-helpers.js';
import { createMigratedTestDatabase } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';
import type { TestDatabase } from '../support/postgres.js';
import { recordTransactions } from '../support/wire-recorder.js';

describe('round trips on PostgreSQL', () => {
  let database: TestDatabase | undefined;
  afterEach(async () => database?.drop());

  /** An engine on a database of its own, its transactions recorded, with a workspace whose account is `phone`. */
  async function engineWithAccount(phone: string) {
    database = await createMigratedTestDatabase('roundtrips');
    const db = new PgDatabase({ url: database.url, poolSize: 2 });
    const statements: string[] = [];
    const transactions = recordTransactions(db, statements);
    const clock = new FakeClock();
    const engine = createEngine({ database: db, clock, random: fixedRandom(), deliverWebhooks: false });
    const { workspace_id: ws, token } = await engine.admin.createWorkspace({ name: 'Trips', quota: 10 });
    await engine.sim(ws).connect({ phone });
    return { engine, transactions, ws, token, db, statements, clock };
  }

  it('receiving a message takes 2 with its events or without: the messages\' insert and the deliveries go unanswered, no body read back', async () => {
    const { engine, transactions, ws } = await engineWithAccount('+15550009102');
    try {
      const receive = async (text: string) => {
        const before = transactions.length;
        await engine.sim(ws).receive({ to: '+15550009102', from: '+14155559102', text });
        return transactions.slice(before).find((trips) => trips.flat().some((head) => head.startsWith('WITH p AS')))!;
      };
      // BEGIN with the batch's prelude (between the settings of its plan); the messages' insert with the COMMIT.
      expect(await receive('unsubscribed')).toEqual([
        ['BEGIN', 'SET LOCAL plan_cache_mode', 'WITH p AS', 'SET LOCAL plan_cache_mode'], ['INSERT INTO messages', 'COMMIT'],
      ]);
      await engine.webhooks(ws).create({ event_type: 'message:received:new', url: 'https://example.com/hook' });
      // BEGIN with the prelude; the insert, its event's deliveries and the COMMIT: the body is built from the
      // message the transaction wrote and the chat and account its prelude read (message-event-view.ts), not read back.
      const subscribed = await receive('subscribed');
      expect(subscribed).toEqual([
        ['BEGIN', 'SET LOCAL plan_cache_mode', 'WITH p AS', 'SET LOCAL plan_cache_mode'], ['INSERT INTO messages', 'INSERT INTO webhook_deliveries', 'COMMIT'],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('accepting it takes 2, claiming it 2, completing it 2, each with its events\' deliveries and COMMIT in one; no claim follows', async () => {
    const { engine, transactions, ws } = await engineWithAccount('+15550009101');
    try {
      for (const event_type of ['chat:created', 'message:sent:new']) await engine.webhooks(ws).create({ event_type, url: 'https://example.com/hook' });
      const before = transactions.length;
      const sent = await engine.workspace(ws).sendToPhone({ phone: '+14155559101', text: 'counted' });
      await engine.workers.runDue();
      expect((await engine.workspace(ws).getMessage(sent.message_uid)).status).toBe('Sent');

      const ran = transactions.slice(before);
      const including = (head: string) => ran.find((trips) => trips.flat().some((h) => h.startsWith(head)))!;
      const lastTrip = (trips: string[][]) => trips.at(-1)!;
      // BEGIN with the batch's prelude (which made the new chat); the multi-row write (its quota guard inside it),
      // the chat:created deliveries and the COMMIT: that body is built from the chat the prelude wrote, not read back.
      const accept = including('WITH locked AS');
      expect(accept).toHaveLength(2);
      expect(lastTrip(accept)).toEqual(['WITH rows AS', 'INSERT INTO webhook_deliveries', 'COMMIT']);
      // BEGIN with the read of the due heads; the leases with the COMMIT.
      const claim = including('WITH leased AS');
      expect(claim).toHaveLength(2);
      expect(lastTrip(claim)).toEqual(['WITH leased AS', 'COMMIT']);
      // It took every message due: no claim transaction follows it to find nothing (two round trips).
      expect(ran.filter((trips) => trips.flat().some((head) => head.startsWith('SELECT to_jsonb(j)')))).toHaveLength(1);
      // BEGIN with the jobs removed, the message marked Sent and read (its workspace's subscriptions with it), and
      // the message:sent:new body read behind them; its deliveries with the COMMIT. No probe of the subscriptions.
      const complete = including('WITH removed AS');
      expect(complete).toHaveLength(2);
      expect(complete[0]!.slice(1)).toEqual(['WITH removed AS', 'SELECT message_views, chat_views']);
      expect(lastTrip(complete)).toEqual(['INSERT INTO webhook_deliveries', 'COMMIT']);
      expect(ran.flat(2).filter((head) => head.startsWith('SELECT DISTINCT s.workspace_id'))).toEqual([]);
      // Both run on generic plans, set with their BEGIN: no statement of their own for it.
      expect([...claim, ...complete].flat()).not.toContain('SET LOCAL plan_cache_mode');
    } finally {
      await engine.close();
    }
  });

  it('a completion reads no bodies ahead for a workspace its last completion found subscribing to no sent message event', async () => {
    const { engine, ws, statements, clock } = await engineWithAccount('+15550009105');
    try {
      const bodiesRead = async (text: string) => {
        const from = statements.length;
        await engine.workspace(ws).sendToPhone({ phone: '+14155559105', text });
        clock.advance(10_000); // past the account's spacing
        await engine.workers.runDue();
        return statements.slice(from).filter((head) => head.startsWith('SELECT message_views')).length;
      };
      // Not known yet: read ahead with the first completion (unused: no event is wanted).
      expect(await bodiesRead('first')).toBe(1);
      expect(await bodiesRead('second')).toBe(0);
      // Subscribed meanwhile: the next completion learns it (its events' bodies read at the end, as before), the one
      // after reads ahead again.
      await engine.webhooks(ws).create({ event_type: 'message:new', url: 'https://example.com/hook' });
      expect(await bodiesRead('third')).toBe(1);
      expect(await bodiesRead('fourth')).toBe(1);
    } finally {
      await engine.close();
    }
  });

  it('a send whose token was let in from memory takes no round trip more: the token is checked with the prelude', async () => {
    const { engine, transactions, ws, token, statements } = await engineWithAccount('+15550009104');
    try {
      expect(await engine.authenticate(token, { recall: true })).toBe(ws);
      const looked = statements.length;
      expect(await engine.authenticate(token, { recall: true })).toBe(ws);
      expect(statements.length).toBe(looked); // from memory
      const before = transactions.length;
      await engine.workspace(ws, { token }).sendToPhone({ phone: '+14155559104', text: 'let in from memory' });
      // BEGIN with the token check and the batch's prelude (between the settings of its plan); the multi-row
      // write with the COMMIT.
      expect(transactions.slice(before)).toEqual([
        [['BEGIN', 'SELECT workspace_id, token_hash', 'SET LOCAL plan_cache_mode', 'WITH locked AS', 'SET LOCAL plan_cache_mode'], ['WITH rows AS', 'COMMIT']],
      ]);
    } finally {
      await engine.close();
    }
  });

  it('claiming its webhook delivery takes 2: the subscriptions with their due rows counted and their live leases, then the due rows read and leased with the COMMIT', async () => {
    const { engine, transactions, ws, db } = await engineWithAccount('+15550009103');
    try {
      await engine.webhooks(ws).create({ event_type: 'message:received:new', url: 'https://example.com/hook' });
      await engine.sim(ws).receive({ to: '+15550009103', from: '+14155559103', text: 'to claim' });
      const outbox = openDeliveryOutbox(db, generateMessageId);
      const before = transactions.length;
      const claimed = await outbox.claimQueued({ now: Date.now(), limit: 10, owner: 'w1', leaseMs: 60_000, perSubscriptionCap: 5, perTenantCap: 20, perEndpointCap: 10 });
      expect(claimed.map((d) => d.eventType)).toEqual(['message:received:new']);
      const claim = transactions.slice(before).find((trips) => trips.flat().some((head) => head.startsWith('WITH due AS')))!;
      expect(claim.map((trip) => trip.length)).toEqual([3, 2]);
      expect(claim[0]!.slice(1)).toEqual(['SELECT id, url,', 'SELECT n, id,']);
      expect(claim.at(-1)).toEqual(['WITH due AS', 'COMMIT']);

      // The worker records the success and claims again in one transaction: the success goes unanswered, so the
      // claim's first statements ride with it.
      await engine.sim(ws).receive({ to: '+15550009103', from: '+14155559103', text: 'queued meanwhile' });
      const ok = { ok: true, statusCode: 200, durationMs: 1, error: null } as const;
      const options = { now: Date.now(), limit: 10, owner: 'w1', leaseMs: 60_000, perSubscriptionCap: 5, perTenantCap: 20, perEndpointCap: 10 };
      const recordedFrom = transactions.length;
      const done = await outbox.recordAndClaim(claimed.map((d) => ({ ...DEFAULT_ATTEMPT_RULES, deliveryId: d.id, owner: 'w1', outcome: ok, now: options.now })), options);
      expect(done.results).toEqual([{ status: 'succeeded', attemptNumber: 1, nextAttemptAt: null, ownerNotified: false }]);
      expect(done.claimed.map((d) => d.eventType)).toEqual(['message:received:new']);
      const recorded = transactions.slice(recordedFrom).find((trips) => trips.flat().some((head) => head.startsWith('WITH attempt AS')))!;
      expect(recorded.map((trip) => trip.length)).toEqual([4, 2]);
      expect(recorded[0]!.slice(1, 3)).toEqual(['WITH attempt AS', 'SELECT id, url,']);
    } finally {
      await engine.close();
    }
  });

  it('a dispatcher woken by a send claims at once, without a look whether anything is due first', async () => {
    const { engine, ws, statements, clock } = await engineWithAccount('+15550009104');
    try {
      const dispatcher = createSendDispatcher(engine.context);
      await engine.workspace(ws).sendToPhone({ phone: '+14155559104', text: 'woken' });
      const NEXT_DUE = 'SELECT MIN(GREATEST(j.run_at,';
      // Whether the run from statement `from` on read when a send is due before it began its claim.
      const lookedFirst = (from: number) => {
        const run = statements.slice(from);
        return run.slice(0, run.indexOf('BEGIN')).some((head) => head.startsWith(NEXT_DUE));
      };
      let from = statements.length;
      expect(await dispatcher.runDue(true)).toBe(1);
      expect(lookedFirst(from)).toBe(false);
      // A poll (not woken) looks first, and finding nothing due ends there.
      await engine.workspace(ws).sendToPhone({ phone: '+14155559104', text: 'polled' });
      clock.advance(60_000); // past the account's spacing
      from = statements.length;
      expect(await dispatcher.runDue(false)).toBe(1);
      expect(lookedFirst(from)).toBe(true);
      from = statements.length;
      expect(await dispatcher.runDue(false)).toBe(0);
      // (The previous completion's wake-up may go out meanwhile: the wake bus sends its NOTIFY up to 5 ms late.)
      const ownStatements = statements.slice(from).filter((head) => !head.startsWith('SELECT pg_notify'));
      expect(ownStatements.map((head) => head.startsWith(NEXT_DUE))).toEqual([true]);
    } finally {
      await engine.close();
    }
  });

  it("a turn's token lookups are one statement, a lone token's as the many tokens' (one by equality, many in an array)", async () => {
    const { engine, statements } = await engineWithAccount('+15550009105');
    try {
      const [a, b] = [await engine.admin.createWorkspace({ name: 'A', quota: 1 }), await engine.admin.createWorkspace({ name: 'B', quota: 1 })];
      let from = statements.length;
      expect(await engine.authenticate(a.token)).toBe(a.workspace_id);
      expect(statements.slice(from)).toEqual(['SELECT workspace_id, token_hash']);
      from = statements.length;
      const many = await Promise.all([a.token, b.token, 'svc_unknown', a.token].map((token) => engine.authenticate(token)));
      expect(many).toEqual([a.workspace_id, b.workspace_id, null, a.workspace_id]);
      expect(statements.slice(from)).toEqual(['SELECT workspace_id, token_hash']);
      expect(await engine.authenticate('svc_unknown')).toBeNull();
    } finally {
      await engine.close();
    }
  });
});
