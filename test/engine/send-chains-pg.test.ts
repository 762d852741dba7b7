/**
 * The send dispatcher on PostgreSQL runs several claim → deliver → complete chains at once: spacing per account
 * must hold as it does across replicas (a claim locks its job and its account), and every send ends exactly once.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { migratePostgres } from '../../src/store/postgres/pg-migrate.js';
import { POSTGRES_SEND_CHAINS } from '../../src/workers/send-dispatcher.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { fixedRandom, testEngine } from '../support/test-engine.js';

let pg: TestDatabase | undefined;
const engines: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const engine of engines) await engine.close();
  await pg?.drop();
});

describe('send dispatcher chains on PostgreSQL', () => {
  it(`${POSTGRES_SEND_CHAINS} chains: one send per account per interval, each message Sent once`, async () => {
    expect(POSTGRES_SEND_CHAINS).toBeGreaterThan(1);
    pg = await createTestDatabase('sendchains');
    const database = new PgDatabase({ url: pg.url, poolSize: 8 });
    await migratePostgres(database.pool);
    const t = await testEngine({ database, random: fixedRandom(0.99) });
    engines.push(t.engine);
    await t.engine.admin.updateWorkspace(t.local.workspace_id, { plan: 'business', send_interval_ms: 500 });
    await t.sim.connect({ phone: '+15550003001' });
    const uids: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      for (const account of ['+15550000001', '+15550003001']) {
        uids.push((await t.api.sendToPhone({ phone: `+1415555${String(1000 + i)}`, text: `m${i}`, messenger_account_phone: account })).message_uid);
      }
    }
    // Six rounds of the interval: each round sends exactly one message per account, never two.
    for (let round = 1; round <= 6; round += 1) {
      expect(await t.engine.workers.runDue()).toBe(2);
      const statuses = await Promise.all(uids.map(async (uid) => (await t.api.getMessage(uid)).status));
      expect(statuses.filter((s) => s === 'Sent')).toHaveLength(2 * round);
      t.clock.advance(499);
      expect(await t.engine.workers.runDue()).toBe(0);
      t.clock.advance(1);
    }
    expect(await t.engine.workers.runDue()).toBe(0);
  });
});
