/** The engine's listen sessions on a fake clock: leases, take-over after a dropped stream, retries, expiry. */
import { afterEach, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { FakeClock } from '../../src/wire/clock.js';
import { LISTEN_LEASE_MS, LISTEN_SESSIONS_PER_WORKSPACE, LISTEN_SESSION_TTL_MS } from '../../src/engine/webhooks/listen-sessions.js';
import { createMaintenanceRunner } from '../../src/workers/maintenance.js';
import { expectSvcError } from '../support/engine-fixtures.js';
import { testEngine } from '../support/test-engine.js';

describe('listen sessions (engine)', () => {
  let t: Awaited<ReturnType<typeof testEngine>>;
  afterEach(async () => t.engine.close());

  const setup = async (events?: string[]) => {
    // Real time as the start: standardwebhooks checks the signature's timestamp against the real clock.
    t = await testEngine({ clock: new FakeClock(Date.now()), config: { webhookRetryDelaysMs: [1000, 2000] } });
    await t.sim.connect({ phone: '+15550001' });
    const listen = t.engine.listen(t.local.workspace_id);
    const session = await listen.open(events === undefined ? {} : { events });
    return { listen, session };
  };
  const receive = () => t.sim.receive({ from: '+4915112345', to: '+15550001', text: 'Hi' });
  const count = (sql: string) => (t.db.prepare(sql).get() as { n: number }).n;

  it('open: one listener subscription per event, all 12 by default, signed with the workspace listener secret', async () => {
    const { listen, session } = await setup();
    expect(session.events).toHaveLength(12);
    expect(count('SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL')).toBe(12);
    expect((await listen.secret()).secret).toBe(session.secret);
    expect((await listen.open({ events: ['chat:created'] })).secret).toBe(session.secret);
    await expect(listen.open({ events: ['nope'] })).rejects.toThrow(/unknown event/);
  });

  it('claim: hands out due deliveries signed for standardwebhooks, once, until the lease runs out', async () => {
    const { listen, session } = await setup(['message:received:new']);
    await receive();
    const [delivery, ...rest] = await listen.claim(session.id);
    expect(rest).toEqual([]);
    expect(delivery).toMatchObject({ event_type: 'message:received:new', attempt: 1, max_attempts: 3 });
    expect(() => new Webhook(session.secret).verify(delivery!.payload, delivery!.headers)).not.toThrow();
    expect(await listen.claim(session.id)).toEqual([]);
    t.clock.advance(LISTEN_LEASE_MS);
    expect((await listen.claim(session.id)).map((d) => d.id)).toEqual([delivery!.id]);
  });

  it('claim: two polls of one session at once hand each delivery out once', async () => {
    const { listen, session } = await setup(['message:received:new']);
    for (let i = 0; i < 3; i += 1) await receive();
    const [a, b] = await Promise.all([listen.claim(session.id), listen.claim(session.id)]);
    const ids = [...a!, ...b!].map((d) => d.id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });

  it('takeOver: a new stream gets at once what the dropped one held; a late result of the old one still counts once', async () => {
    const { listen, session } = await setup(['message:received:new']);
    await receive();
    const [held] = await listen.claim(session.id);
    await listen.takeOver(session.id);
    const [again] = await listen.claim(session.id);
    expect(again).toMatchObject({ id: held!.id, attempt: 1, webhook_id: held!.webhook_id });
    const result = { delivery_id: held!.id, status_code: 200, duration_ms: 3, error: null };
    expect((await listen.report(session.id, result)).status).toBe('succeeded');
    await expectSvcError(() => listen.report(session.id, result), 'conflict');
  });

  it('report: a 500 is retried after the configured delays, then counted once in errors_counter', async () => {
    const { listen, session } = await setup(['message:received:new']);
    await receive();
    const fail = (id: number) => listen.report(session.id, { delivery_id: id, status_code: 500, duration_ms: 1, error: 'receiver answered 500' });
    const [first] = await listen.claim(session.id);
    expect(await fail(first!.id)).toMatchObject({ status: 'retry_scheduled', attempt: 1 });
    expect(await listen.claim(session.id)).toEqual([]);
    t.clock.advance(1000);
    const [second] = await listen.claim(session.id);
    expect(second).toMatchObject({ id: first!.id, attempt: 2, webhook_id: first!.webhook_id });
    expect((await fail(second!.id)).status).toBe('retry_scheduled');
    t.clock.advance(2000);
    expect(await fail((await listen.claim(session.id))[0]!.id)).toMatchObject({ status: 'failed', attempt: 3 });
    expect(count('SELECT errors_counter AS n FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL')).toBe(1);
    expect(count('SELECT COUNT(*) AS n FROM owner_notifications')).toBe(0);
  });

  it('report: another session cannot report a delivery it was not handed', async () => {
    const { listen, session } = await setup(['message:received:new']);
    const other = await listen.open({ events: ['message:received:new'] });
    await receive();
    const [mine] = await listen.claim(session.id);
    await expectSvcError(() => listen.report(other.id, { delivery_id: mine!.id, status_code: 200, duration_ms: 1, error: null }), 'conflict');
    await expectSvcError(() => listen.report(session.id, { delivery_id: 999_999, status_code: 200, duration_ms: 1, error: null }), 'conflict');
  });

  it('close: removes the session, its subscriptions and their deliveries; the session is gone afterwards', async () => {
    const { listen, session } = await setup();
    await receive();
    await listen.close(session.id);
    expect(count('SELECT COUNT(*) AS n FROM listen_sessions')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM webhook_subscriptions')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM webhook_deliveries')).toBe(0);
    await expect(listen.claim(session.id)).rejects.toThrow(/not found/);
  });

  it('open: sessions not seen for the TTL are removed with what they created; seen ones stay', async () => {
    const { listen, session: stale } = await setup(['chat:created']);
    t.clock.advance(LISTEN_SESSION_TTL_MS / 2);
    const live = await listen.open({ events: ['chat:created'] });
    t.clock.advance(LISTEN_SESSION_TTL_MS / 2 + 1);
    await listen.claim(live.id); // a poll is a heartbeat
    await listen.open({ events: ['chat:created'] });
    await expect(listen.get(stale.id)).rejects.toThrow(/not found/);
    expect((await listen.get(live.id)).id).toBe(live.id);
    expect(count('SELECT COUNT(*) AS n FROM webhook_subscriptions')).toBe(2);
  });

  it(`open: at most ${LISTEN_SESSIONS_PER_WORKSPACE} sessions per workspace; one gone for a minute makes room`, async () => {
    const { listen, session: first } = await setup(['chat:created']);
    for (let i = 1; i < LISTEN_SESSIONS_PER_WORKSPACE; i += 1) await listen.open({ events: ['chat:created'] });
    const refused = await expectSvcError(() => listen.open({ events: ['chat:created'] }), 'conflict');
    expect(refused.message).toMatch(/already has 5 open listen sessions/);
    // Another workspace is not affected.
    const other = await t.engine.admin.createWorkspace({ name: 'Other' });
    expect((await t.engine.listen(other.workspace_id).open({})).id).toMatch(/^ls_/);
    // Every session but the first keeps polling; the first one's stream is gone.
    t.clock.advance(LISTEN_SESSION_TTL_MS - 1000);
    const live = t.db.prepare('SELECT id FROM listen_sessions WHERE workspace_id = ? AND id <> ?').all(t.local.workspace_id, first.id) as Array<{ id: string }>;
    for (const { id } of live) await listen.claim(id);
    t.clock.advance(2000);
    expect((await listen.open({ events: ['chat:created'] })).id).toMatch(/^ls_/);
    await expect(listen.get(first.id)).rejects.toThrow(/not found/);
  });

  it('open: concurrent opens at the limit cannot both get in (the count and the insert are one transaction)', async () => {
    const { listen } = await setup(['chat:created']);
    for (let i = 2; i < LISTEN_SESSIONS_PER_WORKSPACE; i += 1) await listen.open({ events: ['chat:created'] });
    const results = await Promise.allSettled([1, 2, 3].map(() => listen.open({ events: ['chat:created'] })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(count('SELECT COUNT(*) AS n FROM listen_sessions')).toBe(LISTEN_SESSIONS_PER_WORKSPACE);
  });

  it('the maintenance sweep closes a session whose stream has been gone a minute, with its subscriptions', async () => {
    const { listen, session } = await setup(['chat:created']);
    t.clock.advance(LISTEN_SESSION_TTL_MS + 1);
    await createMaintenanceRunner(t.engine.context).runDue();
    await expect(listen.get(session.id)).rejects.toThrow(/not found/);
    expect(count('SELECT COUNT(*) AS n FROM webhook_subscriptions')).toBe(0);
  });

  it('listener subscriptions never use up the ids `webhooks create` hands out', async () => {
    const { listen } = await setup();
    const hooks = t.engine.webhooks(t.local.workspace_id);
    const before = await hooks.create({ url: 'https://hooks.example.com/a', event_type: 'chat:created' });
    for (let i = 0; i < 3; i += 1) await listen.close((await listen.open({})).id);
    await listen.open({});
    const after = await hooks.create({ url: 'https://hooks.example.com/b', event_type: 'chat:created' });
    expect(after.id).toBe(before.id + 1);
    expect(count('SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL AND id < 0')).toBeGreaterThan(0);
  });

  it('other workspaces cannot see a session', async () => {
    const { session } = await setup();
    const other = await t.engine.admin.createWorkspace({ name: 'Other' });
    await expect(t.engine.listen(other.workspace_id).get(session.id)).rejects.toThrow(/not found/);
  });
});
