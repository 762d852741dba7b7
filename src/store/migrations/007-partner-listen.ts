import type { MigrationSource } from './migration.js';

/**
 * Version 7: listen sessions of a partner (`svc partner webhooks listen`) beside those of a workspace, so
 * listen_sessions is scoped like webhook_subscriptions: exactly one of workspace_id and partner_id.
 * SQLite cannot drop a NOT NULL, so the table is made anew. Listen sessions live a minute without their
 * stream; the open ones are closed here (with their listener subscriptions and deliveries, deleted
 * explicitly) and a running listener opens a new session when it reconnects.
 */
export const PARTNER_LISTEN: MigrationSource = {
  version: 7,
  name: 'partner-listen',
  sql: {
    sqlite: `
DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT d.id FROM webhook_deliveries d
  JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE s.listen_session_id IS NOT NULL);
DELETE FROM webhook_deliveries WHERE subscription_id IN (SELECT id FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL);
DELETE FROM webhook_subscriptions WHERE listen_session_id IS NOT NULL;
DROP TABLE listen_sessions;
CREATE TABLE listen_sessions (
  id TEXT PRIMARY KEY,
  workspace_id INTEGER REFERENCES workspaces (id),
  partner_id INTEGER REFERENCES partners (id),
  events TEXT NOT NULL, -- JSON array of event types
  secret TEXT NOT NULL,
  last_seen_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  CHECK ((workspace_id IS NULL) <> (partner_id IS NULL))
);
CREATE INDEX listen_sessions_seen ON listen_sessions (last_seen_at);
`,
    postgres: `
ALTER TABLE listen_sessions ALTER COLUMN workspace_id DROP NOT NULL;
ALTER TABLE listen_sessions ADD COLUMN partner_id BIGINT REFERENCES partners (id);
ALTER TABLE listen_sessions ADD CONSTRAINT listen_sessions_scope CHECK ((workspace_id IS NULL) <> (partner_id IS NULL));
`,
  },
};
