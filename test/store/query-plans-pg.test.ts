/**
 * Query plans on PostgreSQL that once scanned a whole table:
 * - The webhook outbox's writes by id look their rows up by index (and a claim's read-and-lease its due rows).
 * - A webhook claim's count of each candidate's due rows (migration 21's function, on its generic plan) reads the
 *   subscription's index range, and its count of live leases only the deliveries in flight. Without an ORDER BY
 *   the index gives, the candidates' generic plan, made while the statistics still showed a drained backlog,
 *   scanned the whole table for each subscription. Given a JSON list, the planner estimated it at
 *   100 rows and, while the table held a few thousand deliveries, hashed them and scanned the whole table at every
 *   lease (seen in auto_explain's log of the mixed load); given an array, it knows the count.
 * - The send queue's "when is the next send due" looks up each account's head by index: its cost grows with the
 *   accounts, not with the queued messages. Joined on `j.id = (SELECT MIN(h.id) ...)`, PostgreSQL hashed every
 *   queued job instead (a sequential scan of the table at every poll of the dispatcher).
 * - The send claim (on its generic plan) fetches each claimed job by its key. With its per-account limit a
 *   parameter, the planner took a tenth of the queue for each account and, once the statistics showed a
 *   backlog, walked the whole queue in id order to meet them (48 ms a claim behind 5,000 queued sends).
 * - The events' view (migration 17's function, on its generic plan) reads each message, chat and related row by
 *   key: a generic plan of nine relations joined once hashed a scan of the whole chats table.
 * - The send claim's leases (on their generic plan) update each job, account and message by its key. Joined to an
 *   unnest of the claims, the generic plan guessed its size and hashed a scan of the whole jobs table.
 * - The incoming messages' prelude (on its generic plan) reads each account by its phone and each chat by its key.
 * - The sim hand-over (migration 20's function, on its generic plan) reads each earlier delivery, account and
 *   unreachable number by key.
 * - Deliveries leased as they are written (migration 22's function, on its generic plans) look at each
 *   subscription's due rows and live leases by index, with 3,000 pending in the statistics, and each event's
 *   subscriptions by their workspace's index range among 2,000.
 * - The send completion (on its generic plan) reaches each message, its chat, account, file and reply by key.
 *   With its messages joined to an unnest of the sent ids and to their chats, accounts and files, the generic
 *   plan hashed a scan of the whole files table.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { positionalValues, toPositional, type Statement } from '../../src/store/sql.js';
import type { TestDatabase } from '../support/postgres.js';
import { createMigratedTestDatabase } from '../support/store-engine.js';
import { EVENT_VIEWS_QUERY } from '../../src/store/migrations/017-event-views-function.js';
import { SIM_HAND_OVER_QUERY } from '../../src/store/migrations/020-sim-hand-over-function.js';
import { DELIVERY_CANDIDATES_QUERY, LIVE_LEASES_QUERY } from '../../src/store/migrations/021-delivery-pick-functions.js';
import { ENQUEUE_LEASING_QUERY, ENQUEUE_TAKERS_QUERY } from '../../src/store/migrations/022-enqueue-leasing-function.js';

/** Every statement the modules below make (module constants, made as they load), captured through `query`. */
const made = vi.hoisted((): Statement[] => []);
vi.mock('../../src/store/sql.js', async (importOriginal) =>
  (await import('../support/statement-capture.js')).capturingSql(await importOriginal(), made));

let database: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  database = await createMigratedTestDatabase('query_plans');
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
  // A few thousand deliveries of one subscription, as after a minute of traffic, with fresh statistics.
  await client.query(`INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) VALUES ('W', 100, 0, 0)`);
  await client.query(`INSERT INTO webhook_subscriptions (workspace_id, event_type, url, enabled, secret, created_at, updated_at)
    VALUES (1, 'message:new', 'https://a.example.com/h', 1, 'whsec_x', 0, 0)`);
  await client.query(`INSERT INTO webhook_deliveries (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
    SELECT 1, 'msg_' || n, 'message:new', repeat('x', 400), 'pending', 0, 0, 0 FROM generate_series(1, 3000) AS n`);
  await client.query('ANALYZE webhook_deliveries');
  // One account with 15,000 queued sends among the queues of 50 accounts.
  await client.query(`INSERT INTO messenger_accounts (workspace_id, phone, full_name, email, status, created_at)
    VALUES (1, '+15550001111', 'A', 'a@example.com', 'connected', 0)`);
  await client.query(`INSERT INTO jobs (kind, ref_id, queue_key, run_at, created_at) SELECT 'send', n, 1 + n % 50, 0, 0 FROM generate_series(1, 15000) AS n`);
  await client.query('ANALYZE jobs');
});
afterAll(async () => {
  await client?.end();
  await database.drop();
});

/** The one statement of those made so far whose PostgreSQL text `matches`; the test fails when there is none. */
function madeStatement(matches: (text: string) => boolean): Statement {
  const statement = made.find((s) => matches(s.text.postgres));
  expect(statement).toBeDefined();
  return statement!;
}

/** The generic plan PostgreSQL makes for `statement` (what `allOnGenericPlan` and a `genericPlans` transaction run), its numbers given inline. */
async function genericPlanOf(statement: Statement, params: Record<string, number | string>): Promise<string> {
  const { text, names } = toPositional(statement.text.postgres);
  return genericPlanOfText(text, names.map((name) => params[name]!));
}

/** The generic plan of a text with `$n` parameters, their values given inline. */
async function genericPlanOfText(text: string, values: ReadonlyArray<number | string>): Promise<string> {
  await client.query('SET plan_cache_mode = force_generic_plan');
  await client.query(`PREPARE generic_probe AS ${text}`);
  try {
    const rows = (await client.query(`EXPLAIN EXECUTE generic_probe(${values.join(', ')})`)).rows as Array<{ 'QUERY PLAN': string }>;
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.query('DEALLOCATE generic_probe');
    await client.query('RESET plan_cache_mode');
  }
}

/** A plan that reaches rows by key: no sequential scan of `tables` (a one-row table's scan is its cheapest read), no hash join. */
function expectByKey(plan: string, tables: readonly string[]): void {
  for (const table of tables) expect(plan).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
  expect(plan).not.toMatch(/Hash (\w+ )?Join/);
}

/** The plan PostgreSQL makes for `statement` with these values. */
async function planOf(statement: Statement, params: Record<string, unknown>): Promise<string> {
  const { text, names } = toPositional(statement.text.postgres);
  const rows = (await client.query(`EXPLAIN ${text}`, positionalValues(names, params))).rows as Array<{ 'QUERY PLAN': string }>;
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

describe('webhook delivery query plans on PostgreSQL', () => {
  it('leasing and recording a few of 3,000 deliveries look them up by index, not by scanning the table', async () => {
    await import('../../src/store/webhooks/delivery-store.js');
    await import('../../src/store/webhooks/delivery-attempts.js');
    const lease = madeStatement((text) => text.startsWith('UPDATE webhook_deliveries') && text.includes("SET status = 'delivering', lease_owner = @owner"));
    const leaseDue = madeStatement((text) => text.includes('WITH due AS MATERIALIZED'));
    const record = madeStatement((text) => text.includes('WITH attempt AS'));
    const leasePlan = await planOf(lease, { ids: [5, 6, 7], owner: 'w1', leaseUntil: 1 });
    expect(leasePlan).toMatch(/Index Scan using webhook_deliveries_pkey on webhook_deliveries/);
    expect(leasePlan).not.toContain('Seq Scan on webhook_deliveries');
    // A claim's due rows read and leased in one statement: the rows it read are leased by key.
    const leaseDuePlan = await planOf(leaseDue, { asks: JSON.stringify([{ sub: 1, lim: 3 }]), now: 1, owner: 'w1', leaseUntil: 1 });
    expect(leaseDuePlan).toMatch(/Index Scan using webhook_deliveries_pkey on webhook_deliveries d/);
    expect(leaseDuePlan).not.toContain('Seq Scan on webhook_deliveries d');
    const recordPlan = await planOf(record, { ids: [5, 6, 7], statusCodes: [200, 200, 200], durations: [3, 3, 3], owner: 'w1', now: 1 });
    expect(recordPlan).toMatch(/Index Scan using webhook_deliveries_\w+ on webhook_deliveries/);
    expect(recordPlan).not.toContain('Seq Scan on webhook_deliveries');
  });
});

describe('webhook claim candidates on PostgreSQL', () => {
  it("migration 21's functions run their queries on generic plans", async () => {
    const { rows } = await client.query<{ name: string; config: string[] | null }>(
      "SELECT proname AS name, proconfig AS config FROM pg_proc WHERE proname IN ('svc_delivery_candidates', 'svc_live_leases') ORDER BY proname");
    expect(rows).toEqual([
      { name: 'svc_delivery_candidates', config: ['plan_cache_mode=force_generic_plan'] },
      { name: 'svc_live_leases', config: ['plan_cache_mode=force_generic_plan'] },
    ]);
  });

  it("counting each subscription's due rows reads its index range on the generic plan, even with a backlog in the statistics", async () => {
    // The statistics (analyzed above) show 3,000 pending deliveries, as after a backlog that has since drained.
    const text = DELIVERY_CANDIDATES_QUERY.replaceAll('p_now', '$1::bigint').replaceAll('p_session', '$2::text').replaceAll('p_due_cap', '$3::bigint');
    const plan = await genericPlanOfText(text, [1, 'NULL', 32]);
    expect(plan).toMatch(/Index Only Scan using webhook_deliveries_pending_sub on webhook_deliveries d\w* [^\n]*\n\s+Index Cond: \(\(subscription_id = s\.id\) AND \(next_attempt_at/);
    expect(plan).not.toContain('Seq Scan on webhook_deliveries');
  });

  it('counting the live leases reads only the deliveries in flight on the generic plan, with 3,000 finished', async () => {
    await client.query(`INSERT INTO webhook_deliveries (subscription_id, webhook_msg_id, event_type, payload, status, attempts, next_attempt_at, created_at)
      SELECT 1, 'done_' || n, 'message:new', repeat('x', 400), 'succeeded', 1, 0, 0 FROM generate_series(1, 3000) AS n`);
    await client.query('ANALYZE webhook_deliveries');
    const plan = await genericPlanOfText(LIVE_LEASES_QUERY.replaceAll('p_now', '$1::bigint'), [1]);
    expect(plan).toMatch(/Index (Only )?Scan using webhook_deliveries_delivering_sub on webhook_deliveries d/);
    expect(plan).not.toContain('Seq Scan on webhook_deliveries');
  });
});

describe('deliveries leased as they are written, on PostgreSQL', () => {
  it("migration 22's statements read each subscription's due rows and live leases by index on their generic plans", async () => {
    const { rows } = await client.query<{ config: string[] | null }>("SELECT proconfig AS config FROM pg_proc WHERE proname = 'svc_enqueue_leasing'");
    expect(rows).toEqual([{ config: ['plan_cache_mode=force_generic_plan'] }]);
    // And 2,000 subscriptions of 400 other tenants: each event's are found by their workspace's index range.
    await client.query(`INSERT INTO workspaces (name, quota_total, quota_period_start, created_at) SELECT 'T' || n, 100, 0, 0 FROM generate_series(1, 400) AS n`);
    await client.query(`INSERT INTO webhook_subscriptions (workspace_id, event_type, url, enabled, secret, created_at, updated_at)
      SELECT 2 + n % 400, 'e' || n, 'https://a.example.com/h', 1, 'whsec_x', 0, 0 FROM generate_series(1, 2000) AS n`);
    await client.query('ANALYZE workspaces, webhook_subscriptions');
    // The function's variables as `$n` parameters of their types, in the order given.
    const parameters = (text: string, names: ReadonlyArray<readonly [string, string]>) =>
      names.reduce((sql, [name, type], i) => sql.replace(new RegExp(`\\b${name}\\b`, 'g'), `$${i + 1}::${type}`), text);
    const takers = parameters(ENQUEUE_TAKERS_QUERY, [['p_workspace_ids', 'bigint[]'], ['p_event_types', 'text[]'], ['p_now', 'bigint']]);
    const takersPlan = await genericPlanOfText(takers, ['ARRAY[1]', "ARRAY['message:new']", 1]);
    expect(takersPlan).toMatch(/Index Only Scan using webhook_deliveries_pending_sub on webhook_deliveries d/);
    expect(takersPlan).toMatch(/Index Only Scan using webhook_deliveries_delivering_sub on webhook_deliveries d/);
    expect(takersPlan).not.toContain('Seq Scan on webhook_deliveries');
    const leasing = parameters(ENQUEUE_LEASING_QUERY, [
      ['p_msg_ids', 'text[]'], ['p_event_types', 'text[]'], ['p_workspace_ids', 'bigint[]'], ['p_payloads', 'text[]'], ['p_nows', 'bigint[]'],
      ['p_owner', 'text'], ['p_now', 'bigint'], ['p_lease_until', 'bigint'], ['p_budget', 'bigint'], ['p_subscription_cap', 'bigint'],
      ['p_tenant_cap', 'bigint'], ['v_takers', 'bigint[]'],
    ]);
    const leasingPlan = await genericPlanOfText(leasing, [
      "ARRAY['msg_a']", "ARRAY['message:new']", 'ARRAY[1]', "ARRAY['{}']", 'ARRAY[1]', "'w'", 1, 2, 8, 32, 32, 'ARRAY[1]',
    ]);
    expect(leasingPlan).toMatch(/Index Only Scan using webhook_deliveries_delivering_sub on webhook_deliveries d/);
    expect(leasingPlan).not.toContain('Seq Scan on webhook_deliveries');
    for (const plan of [takersPlan, leasingPlan]) expect(plan).not.toContain('Seq Scan on webhook_subscriptions');
  });
});

describe('send queue query plans on PostgreSQL', () => {
  it('the next send time reads each account\'s head by index, never the whole queue', async () => {
    await import('../../src/store/job-store.js');
    const next = madeStatement((text) => text.startsWith('SELECT MIN(GREATEST('));
    const plan = await planOf(next, {});
    expect(plan).toMatch(/Index (Only )?Scan using jobs_queue_head on jobs/);
    expect(plan).not.toContain('Seq Scan on jobs');
    // And it answers: the account's head is due.
    const { rows } = await client.query<{ t: string | null }>(toPositional(next.text.postgres).text);
    expect(rows[0]!.t).not.toBeNull();
  });
});

describe('send claim query plan on PostgreSQL', () => {
  it('its generic plan fetches each claimed job by its key, never walking the queue', async () => {
    await import('../../src/store/send-queue-store.js');
    const claim = madeStatement((text) => text.startsWith('SELECT to_jsonb(j) AS job'));
    // The backlog as the statistics see it once analyzed: 15,000 queued sends, one account, one workspace.
    await client.query('ANALYZE messenger_accounts, workspaces');
    const plan = await genericPlanOf(claim, { now: 1, limit: 64 });
    expect(plan).toMatch(/Index Scan using jobs_pkey on jobs j .*\n\s+Index Cond: \(id = q\.id\)/);
    expect(plan).not.toContain('Merge Join');
  });
});

describe('send completion query plan on PostgreSQL', () => {
  it('its generic plan reaches every message and chat by its key, with thousands of chats and messages', async () => {
    await import('../../src/store/send-queue-store.js');
    const finish = madeStatement((text) => text.startsWith('WITH removed AS (DELETE FROM jobs'));
    // 3,000 contacts of the account, each with a message, as after a busy hour; fresh statistics.
    await client.query(`INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
      SELECT 1, 1, '+1415' || n, 'Contact ' || n, 'contact', 0 FROM generate_series(1, 3000) AS n`);
    await client.query(`INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, created_at)
      SELECT 'm' || c.id, 1, c.id, 1, 'sent', 'Pending', 0 FROM chats c`);
    await client.query('ANALYZE chats, messages, messenger_accounts, jobs');
    const plan = await genericPlanOf(finish, { ids: "'{1,2,3}'", sentIds: "'{1,2}'", networkMessageIds: "'{n1,n2}'", now: 1 });
    // (The account's table holds one row: scanning it is its cheapest read.)
    expectByKey(plan, ['messages', 'chats', 'jobs']);
    expect(plan).toMatch(/Index Scan using messages_pkey on messages m .*\n\s+Index Cond: \(id = ANY \(\$\d+\)\)/);
    expect(plan).toMatch(/Index Scan using chats_pkey on chats c .*\n\s+Index Cond: \(id = m\.chat_id\)/);
  });
});

describe('send claim leases query plan on PostgreSQL', () => {
  it("its generic plan leases each job and moves each message by its key, with 15,000 queued and the completion's 3,000 messages", async () => {
    await import('../../src/store/send-queue-store.js');
    const apply = madeStatement((text) => text.startsWith('WITH leased AS (UPDATE jobs'));
    await client.query('ANALYZE jobs, messages, messenger_accounts');
    const plan = await genericPlanOf(apply, { jobIds: "'{1,2}'", accountIds: "'{1,1}'", nextSendAts: "'{5,5}'", messageIds: "'{1,2}'", owner: "'w1'", until: 9 });
    expectByKey(plan, ['jobs', 'messages']);
    expect(plan).toMatch(/Index Scan using jobs_pkey on jobs\s.*\n\s+Index Cond: \(id = ANY \(\$\d+\)\)/);
  });
});

describe("events' view query plan on PostgreSQL", () => {
  it('the function runs its query on a generic plan, which reads messages and chats by key with thousands of them', async () => {
    const { rows } = await client.query<{ config: string[] | null }>("SELECT proconfig AS config FROM pg_proc WHERE proname = 'svc_event_views'");
    expect(rows).toEqual([{ config: ['plan_cache_mode=force_generic_plan'] }]);
    // 3,000 more chats, each with a received message; fresh statistics.
    await client.query(`INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
      SELECT 1, 1, '+1416' || n, 'Other ' || n, 'contact', 0 FROM generate_series(1, 3000) AS n`);
    await client.query(`INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, created_at)
      SELECT 'v' || c.id, 1, c.id, 1, 'received', 'Sent', 0 FROM chats c WHERE c.name LIKE 'Other %'`);
    await client.query('ANALYZE chats, messages, messenger_accounts, files, reactions');
    const text = EVENT_VIEWS_QUERY.replace('p_message_ids', '$1::bigint[]').replace('p_chat_ids', '$2::bigint[]');
    const plan = await genericPlanOfText(text, ["'{1,2}'", "'{1}'"]);
    expectByKey(plan, ['messages', 'chats']);
    expect(plan).toMatch(/Index Scan using messages_pkey on messages m .*\n\s+Index Cond: \(id = ANY \(\$1\)\)/);
    expect(plan).toMatch(/Index Scan using chats_pkey on chats c(_\d+)? .*\n\s+Index Cond: \(id = ANY \(\$2\)\)/);
  });
});

describe('sim hand-over query plan on PostgreSQL', () => {
  it('the function runs its query on a generic plan, which reads deliveries and numbers by key with thousands of them', async () => {
    const { rows } = await client.query<{ config: string[] | null }>("SELECT proconfig AS config FROM pg_proc WHERE proname = 'svc_sim_hand_over'");
    expect(rows).toEqual([{ config: ['plan_cache_mode=force_generic_plan'] }]);
    // 3,000 earlier deliveries and numbers marked unreachable; fresh statistics.
    await client.query(`INSERT INTO sim_deliveries (message_uid, network_message_id, delivered_at) SELECT 'u' || n, 'n' || n, 0 FROM generate_series(1, 3000) AS n`);
    await client.query(`INSERT INTO sim_numbers (phone, unreachable) SELECT '1:+1417' || n, 1 FROM generate_series(1, 3000) AS n`);
    await client.query('ANALYZE sim_deliveries, sim_numbers, messenger_accounts');
    let text = SIM_HAND_OVER_QUERY;
    ['p_uids', 'p_network_ids', 'p_phones', 'p_account_phones'].forEach((name, i) => (text = text.replace(name, `$${i + 1}::text[]`)));
    const plan = await genericPlanOfText(text.replace('p_ats', '$5::bigint[]'), ["'{u1,x}'", "'{n1,n2}'", "'{+1,+2}'", "'{+15550001111,+15550001111}'", "'{1,2}'"]);
    expectByKey(plan, ['sim_deliveries', 'sim_numbers']);
    expect(plan).toMatch(/Index Scan using sim_deliveries_pkey on sim_deliveries d\s.*\n\s+Index Cond: \(message_uid = r\.uid\)/);
    expect(plan).toMatch(/Index (Only )?Scan using sim_numbers_pkey on sim_numbers n/);
  });
});

describe('incoming messages prelude query plan on PostgreSQL', () => {
  it('its generic plan reads each account by its phone and each chat by its key, with thousands of both', async () => {
    await import('../../src/store/batch-read-store.js');
    const prelude = madeStatement((text) => text.includes('FROM p JOIN messenger_accounts a ON a.phone = p.account_phone'));
    await client.query(`INSERT INTO messenger_accounts (workspace_id, phone, full_name, email, status, created_at)
      SELECT 1, '+1556' || n, 'A', 'a@example.com', 'connected', 0 FROM generate_series(1, 2000) AS n`);
    await client.query(`INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at)
      SELECT 1, a.id, '+49' || n, a.phone || ' ' || n, 'contact', 0 FROM messenger_accounts a CROSS JOIN generate_series(1, 10) AS n`);
    await client.query('ANALYZE messenger_accounts, chats');
    const plan = await genericPlanOf(prelude, { accountPhones: "'{+15561}'", contactPhones: "'{+491}'", chatNames: "'{x}'", now: 1, count: 1 });
    // Without the accounts asked for by their phones (`= ANY`), it hashed a scan of every account.
    expect(plan).toMatch(/Index Scan using messenger_accounts_phone_key on messenger_accounts a|Index Cond: \(phone = ANY \(\$1\)\)/);
    expect(plan).not.toMatch(/Seq Scan on (messenger_accounts|chats)\b/);
  });
});
