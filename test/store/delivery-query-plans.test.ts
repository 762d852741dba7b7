import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import type { Statement } from '../../src/store/sql.js';
import { tempDir } from '../support/run-cli.js';

/** Every statement the modules below make (module constants, made as they load), captured through `query`. */
const made = vi.hoisted((): Statement[] => []);
vi.mock('../../src/store/sql.js', async (importOriginal) =>
  (await import('../support/statement-capture.js')).capturingSql(await importOriginal(), made));

/** The SQLite text of every statement over webhook_deliveries of the stores that read or write it. */
async function deliveryStatements(): Promise<string[]> {
  await import('../../src/store/webhooks/delivery-store.js');
  await import('../../src/store/webhooks/delivery-attempts.js');
  await import('../../src/store/webhooks/delivery-picker.js');
  await import('../../src/store/webhooks/delivery-log-store.js');
  await import('../../src/store/stats-store.js');
  await import('../../src/store/webhooks/listen-store.js');
  await import('../../src/store/maintenance-store.js');
  return [...new Set(made.map((statement) => statement.text.sqlite).filter((sql) => sql.includes('webhook_deliveries')))];
}

const parameters = (sql: string) => Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 1]));

describe('webhook delivery query plans', () => {
  // The outbox keeps every finished delivery for the retention period (10 days): a statement that scans the
  // table costs more each day, so every one must go through an index (the live queue is a small part of it).
  it('no statement over webhook_deliveries scans the table; claims and /metrics read the per-subscription partial indexes', async () => {
    const db = openDatabase(join(tempDir(), 'svc.db'));
    const statements = await deliveryStatements();
    expect(statements.length).toBeGreaterThan(15);
    const plans = statements.map((sql) => {
      const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(parameters(sql)) as Array<{ detail: string }>;
      return { sql: sql.replace(/\s+/g, ' ').trim(), plan: rows.map((r) => r.detail) };
    });
    const tableScans = plans.filter(({ plan }) => plan.some((step) => /^SCAN (webhook_deliveries|d)$/.test(step) && !plan.includes('CO-ROUTINE d')));
    expect(tableScans).toEqual([]);
    const stats = plans.find(({ sql }) => sql.includes("THEN 'listen'"));
    expect(stats?.plan.join(' | ')).toMatch(/webhook_deliveries_pending_sub.*webhook_deliveries_delivering_sub/);
    const indexes = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries'`).all() as Array<{ name: string }>;
    expect(indexes.map((i) => i.name)).not.toContain('webhook_deliveries_due');
    expect(indexes.map((i) => i.name)).not.toContain('webhook_deliveries_leased');
    db.close();
  });
});
