import { postgresOnly, query, type SqlExecutor, type Statement } from './sql.js';

// Finished deliveries (their attempts go with them) and settled owner notices, oldest first, in batches so a
// sweep never holds the write lock for long.
const OLD_DELIVERIES = query(`DELETE FROM webhook_deliveries WHERE id IN (
  SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < @before LIMIT @limit)`);
const OLD_ATTEMPTS = query(`DELETE FROM webhook_attempts WHERE delivery_id IN (
  SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < @before LIMIT @limit)`);
const OLD_NOTICES = query(`DELETE FROM owner_notifications WHERE id IN (
  SELECT id FROM owner_notifications WHERE created_at < @before AND mail_status <> 'pending' LIMIT @limit)`);
const STALE_SESSIONS = query<{ id: string; workspace_id: number | null; partner_id: number | null }>(
  'SELECT id, workspace_id, partner_id FROM listen_sessions WHERE last_seen_at < @before',
);
// SQLite only: PostgreSQL's autovacuum keeps its own free space.
const FREELIST_COUNT = query<{ freelist_count: number }>({ sqlite: 'PRAGMA freelist_count', postgres: 'SELECT 0 AS freelist_count' });
// One page per execution: a statement step frees one page, and the executor steps a row-less statement once.
const RELEASE_ONE_PAGE = query({ sqlite: 'PRAGMA incremental_vacuum(1)', postgres: 'SELECT 1' });
const TRUNCATE_WAL = query({ sqlite: 'PRAGMA wal_checkpoint(TRUNCATE)', postgres: 'SELECT 1' });

// PostgreSQL: svc's tables that have grown to several times what the planner's statistics say (`reltuples`,
// -1 before the first ANALYZE). Plans made from a table's picture as nearly empty scan it whole, and a generic
// plan keeps doing so on every connection until the next ANALYZE; autovacuum's own is up to a minute away,
// and further still once tables are large (a tenth of the rows must change).
export const OUTGROWN_MIN_ROWS = 1_000;
export const OUTGROWN_FACTOR = 4;
const OUTGROWN_TABLES = postgresOnly<{ name: string }>(
  `SELECT s.relname AS name FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
   WHERE s.schemaname = current_schema() AND s.n_live_tup >= ${OUTGROWN_MIN_ROWS}
     AND s.n_live_tup > ${OUTGROWN_FACTOR} * GREATEST(c.reltuples, 0)
   ORDER BY s.relname`,
);
// One statement per table, made once: svc's tables are few.
const analyzeStatements = new Map<string, Statement>();
const analyzeOf = (table: string): Statement => {
  let statement = analyzeStatements.get(table);
  if (statement === undefined) {
    // SKIP_LOCKED: another replica's ANALYZE (or a VACUUM) of the table already under way is enough.
    statement = postgresOnly(`ANALYZE (SKIP_LOCKED) "${table.replaceAll('"', '""')}"`);
    analyzeStatements.set(table, statement);
  }
  return statement;
};

/** Housekeeping statements: retention sweeps, and how much space deleted rows left inside an SQLite file. */
export function createMaintenanceStore(sql: SqlExecutor) {
  return {
    /**
     * Deletes up to `limit` finished deliveries (with their attempts) and settled notices older than `before`.
     * Call inside a write transaction.
     */
    async purgeBefore(before: number, limit: number): Promise<number> {
      await sql.run(OLD_ATTEMPTS, { before, limit });
      return (await sql.run(OLD_DELIVERIES, { before, limit })) + (await sql.run(OLD_NOTICES, { before, limit }));
    },
    staleListenSessions: (before: number) => sql.all(STALE_SESSIONS, { before }),
    /** Pages on SQLite's free list, i.e. space deleted rows left behind inside the file; 0 on PostgreSQL. */
    freePages: async (): Promise<number> => (sql.dialect === 'sqlite' ? ((await sql.get(FREELIST_COUNT))?.freelist_count ?? 0) : 0),
    /** Returns up to `pages` free pages to the file system (SQLite). Call inside a write transaction. */
    async releaseFreePages(pages: number): Promise<void> {
      if (sql.dialect !== 'sqlite') return;
      for (let i = 0; i < pages; i += 1) await sql.run(RELEASE_ONE_PAGE);
    },
    /**
     * PostgreSQL: analyzes each table that outgrew its planner statistics (`OUTGROWN_FACTOR` times, and at
     * least `OUTGROWN_MIN_ROWS` rows), and answers their names. SQLite plans without row counts: nothing there.
     */
    async refreshOutgrownStatistics(): Promise<string[]> {
      if (sql.dialect !== 'postgres') return [];
      const tables = (await sql.all(OUTGROWN_TABLES)).map((row) => row.name);
      for (const table of tables) await sql.run(analyzeOf(table));
      return tables;
    },
    /** Folds the WAL back into the file so the released pages leave the disk now (SQLite). Call outside a transaction. */
    async truncateWal(): Promise<void> {
      if (sql.dialect === 'sqlite') await sql.run(TRUNCATE_WAL);
    },
  };
}
