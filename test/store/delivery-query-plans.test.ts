import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/database.js';
import { createListenStore } from '../../src/store/listen-store.js';
import { createMaintenanceStore } from '../../src/store/maintenance-store.js';
import { createStatsStore } from '../../src/store/stats-store.js';
import { DeliveryLog } from '../../src/webhooks/delivery-log.js';
import { DeliveryQueue } from '../../src/webhooks/delivery-queue.js';
import { tempDir } from '../cli/run-cli.js';

/** Every statement the stores prepare over webhook_deliveries, captured as they are built. */
function deliveryStatements(db: Db): string[] {
  const statements: string[] = [];
  const capturing = new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') {
        return (sql: string) => {
          if (sql.includes('webhook_deliveries')) statements.push(sql);
          return target.prepare(sql);
        };
      }
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  new DeliveryQueue(capturing);
  new DeliveryLog(capturing);
  createStatsStore(capturing);
  createListenStore(capturing);
  createMaintenanceStore(capturing);
  return statements;
}

const parameters = (sql: string) => ({
  named: Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 1])),
  positional: Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => 1),
});

describe('webhook delivery query plans', () => {
  // The outbox keeps every finished delivery for the retention period (10 days): a statement that scans the
  // table costs more each day, so every one must go through an index (the live queue is a small part of it).
  it('no statement over webhook_deliveries scans the table; claims and /metrics read the per-subscription partial indexes', () => {
    const db = openDatabase(join(tempDir(), 'svc.db'));
    const statements = deliveryStatements(db);
    expect(statements.length).toBeGreaterThan(15);
    const plans = statements.map((sql) => {
      const { named, positional } = parameters(sql);
      const statement = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
      const rows = (Object.keys(named).length > 0 ? statement.all(named) : statement.all(...positional)) as Array<{ detail: string }>;
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
