import type { Db } from './database.js';

/** Housekeeping statements: retention sweeps and giving freed pages back to the file system. */
export function createMaintenanceStore(db: Db) {
  // Finished deliveries (their attempts go with them) and settled owner notices, oldest first, in batches so a
  // sweep never holds the write lock for long.
  const oldDeliveries = db.prepare(`DELETE FROM webhook_deliveries WHERE id IN (
    SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < @before LIMIT @limit)`);
  const oldAttempts = db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (
    SELECT id FROM webhook_deliveries WHERE completed_at IS NOT NULL AND completed_at < @before LIMIT @limit)`);
  const oldNotices = db.prepare(`DELETE FROM owner_notifications WHERE id IN (
    SELECT id FROM owner_notifications WHERE created_at < @before AND mail_status <> 'pending' LIMIT @limit)`);
  const staleSessions = db.prepare<[number], { id: string; workspace_id: number | null; partner_id: number | null }>(
    'SELECT id, workspace_id, partner_id FROM listen_sessions WHERE last_seen_at < ?',
  );

  return {
    /** Deletes up to `limit` finished deliveries (with their attempts) and settled notices older than `before`. */
    purgeBefore(before: number, limit: number): number {
      oldAttempts.run({ before, limit });
      return oldDeliveries.run({ before, limit }).changes + oldNotices.run({ before, limit }).changes;
    },
    staleListenSessions: (before: number) => staleSessions.all(before),
    /** Pages on the free list, i.e. space deleted rows left behind inside the file. */
    freePages: (): number => db.pragma('freelist_count', { simple: true }) as number,
    /** Returns up to `pages` free pages to the file system, then folds the WAL back so the file shrinks now. */
    releaseFreePages(pages: number): void {
      db.pragma(`incremental_vacuum(${pages})`);
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
  };
}
