import type { MigrationSource } from './migration.js';

/**
 * Version 6: limits a shared instance needs. Each workspace gets a storage quota (NULL: the server's
 * default) and a running total of the bytes its live files hold, kept in the same transaction as each
 * upload and delete so the check costs one row read. Finished deliveries are swept by age, so they get an
 * index on when they finished.
 */
export const LIMITS: MigrationSource = {
  version: 6,
  name: 'limits',
  sql: `
ALTER TABLE workspaces ADD COLUMN storage_limit_bytes BIGINT CHECK (storage_limit_bytes >= 0);
ALTER TABLE workspaces ADD COLUMN storage_used_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE workspaces SET storage_used_bytes =
  (SELECT COALESCE(SUM(size), 0) FROM files WHERE files.workspace_id = workspaces.id AND files.deleted_at IS NULL);
CREATE INDEX webhook_deliveries_completed ON webhook_deliveries (completed_at) WHERE completed_at IS NOT NULL;
CREATE INDEX owner_notifications_created ON owner_notifications (created_at);
`,
};
