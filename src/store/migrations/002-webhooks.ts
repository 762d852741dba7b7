import type { MigrationSource } from './migration.js';

/**
 * Version 2: webhook subscriptions, the durable delivery outbox with its attempt log, owner notifications
 * and `svc webhooks listen` sessions. Timestamps are INTEGER milliseconds since the epoch, as in 001-core.
 */
export const WEBHOOKS: MigrationSource = {
  version: 2,
  name: 'webhooks',
  sql: `
-- One running \`svc webhooks listen\`. Its subscriptions are handed to the listener instead of POSTed;
-- a session not seen for a while is removed together with its subscriptions.
CREATE TABLE listen_sessions (
  id TEXT PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  events TEXT NOT NULL, -- JSON array of event types
  secret TEXT NOT NULL,
  last_seen_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX listen_sessions_seen ON listen_sessions (last_seen_at);

-- Scoped to exactly one of a workspace (Public API) or a partner (Partner API webhooks; the partners
-- table comes with that feature, so partner_id carries no foreign key yet).
CREATE TABLE webhook_subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- ids are never handed out twice, even after a delete
  workspace_id BIGINT REFERENCES workspaces (id),
  partner_id BIGINT,
  event_type TEXT NOT NULL,
  url TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  secret TEXT NOT NULL,
  errors_counter INTEGER NOT NULL DEFAULT 0 CHECK (errors_counter >= 0),
  -- Deliveries failed in a row (after all attempts); reset by a success; drives owner notifications.
  consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  listen_session_id TEXT REFERENCES listen_sessions (id) ON DELETE CASCADE,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  CHECK ((workspace_id IS NULL) <> (partner_id IS NULL))
);
CREATE INDEX webhook_subscriptions_workspace ON webhook_subscriptions (workspace_id, event_type, enabled);
CREATE INDEX webhook_subscriptions_partner ON webhook_subscriptions (partner_id, event_type, enabled);
CREATE INDEX webhook_subscriptions_listen ON webhook_subscriptions (listen_session_id);

-- The outbox. A row is written in the same transaction as the change that caused the event, so an
-- acknowledged change always gets its delivery. A redelivery is a new row with the same webhook_msg_id.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  subscription_id BIGINT NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
  webhook_msg_id TEXT NOT NULL,
  event_type TEXT NOT NULL,
  payload TEXT NOT NULL, -- the exact body that is signed and sent
  status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivering', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at BIGINT,
  lease_owner TEXT,
  lease_until BIGINT,
  created_at BIGINT NOT NULL,
  completed_at BIGINT
);
-- Claiming looks at pending rows that are due and delivering rows whose lease ran out.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (lease_until) WHERE status = 'delivering';
CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, id);
CREATE INDEX webhook_deliveries_msg ON webhook_deliveries (webhook_msg_id);

CREATE TABLE webhook_attempts (
  id INTEGER PRIMARY KEY,
  delivery_id BIGINT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_number INTEGER NOT NULL CHECK (attempt_number >= 1),
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  status_code INTEGER,
  duration_ms BIGINT NOT NULL,
  error TEXT,
  created_at BIGINT NOT NULL,
  UNIQUE (delivery_id, attempt_number)
);

-- Something the workspace owner (or partner) must hear about. emailed_at stays NULL until a mailer
-- (only where SMTP is configured) has sent it.
CREATE TABLE owner_notifications (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT REFERENCES workspaces (id),
  partner_id BIGINT,
  subscription_id BIGINT REFERENCES webhook_subscriptions (id) ON DELETE SET NULL,
  kind TEXT NOT NULL,
  details TEXT, -- JSON
  created_at BIGINT NOT NULL,
  emailed_at BIGINT,
  CHECK ((workspace_id IS NULL) <> (partner_id IS NULL))
);
CREATE INDEX owner_notifications_unsent ON owner_notifications (emailed_at, id);
`,
};
