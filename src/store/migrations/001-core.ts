import type { MigrationSource } from './migration.js';

/** Version 1: workspaces, tokens, accounts, chats, messages, files, credits and the durable job table. */
export const CORE: MigrationSource = {
  version: 1,
  name: 'core',
  sql: `
CREATE TABLE workspaces (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  plan TEXT NOT NULL DEFAULT 'standard' CHECK (plan IN ('standard', 'business')),
  is_local INTEGER NOT NULL DEFAULT 0,
  partner_id BIGINT,
  owner_email TEXT,
  seats_purchased INTEGER NOT NULL DEFAULT 1 CHECK (seats_purchased >= 0),
  send_interval_ms BIGINT CHECK (send_interval_ms IS NULL OR send_interval_ms >= 0),
  quota_total BIGINT NOT NULL CHECK (quota_total >= 0),
  quota_used BIGINT NOT NULL DEFAULT 0 CHECK (quota_used >= 0),
  quota_period_start BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX workspaces_partner ON workspaces (partner_id);

CREATE TABLE api_tokens (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  token_hash BLOB NOT NULL UNIQUE,
  token TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);
CREATE INDEX api_tokens_workspace ON api_tokens (workspace_id);

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE INDEX users_workspace ON users (workspace_id);

-- A phone is logged in at one place at a time, so it is unique across workspaces.
CREATE TABLE messenger_accounts (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  user_id BIGINT REFERENCES users (id),
  phone TEXT NOT NULL UNIQUE,
  full_name TEXT NOT NULL,
  email TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('connected', 'disconnected', 'suspended')),
  connected_at BIGINT,
  -- Earliest time the next message may leave this account (send spacing, shared by every process).
  next_send_at BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL
);
CREATE INDEX messenger_accounts_workspace ON messenger_accounts (workspace_id, status, connected_at);

CREATE TABLE chats (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  messenger_account_id BIGINT NOT NULL REFERENCES messenger_accounts (id),
  contact_phone TEXT NOT NULL,
  name TEXT NOT NULL,
  is_group INTEGER NOT NULL DEFAULT 0,
  started_by TEXT NOT NULL CHECK (started_by IN ('workspace', 'contact')),
  responsible_email TEXT,
  responsible_name TEXT,
  created_at BIGINT NOT NULL,
  UNIQUE (workspace_id, name),
  UNIQUE (messenger_account_id, contact_phone)
);

CREATE TABLE labels (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  UNIQUE (workspace_id, name)
);

CREATE TABLE chat_labels (
  chat_id BIGINT NOT NULL REFERENCES chats (id),
  label_id BIGINT NOT NULL REFERENCES labels (id),
  PRIMARY KEY (chat_id, label_id)
);

CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  filename TEXT NOT NULL,
  mimetype TEXT NOT NULL,
  size BIGINT NOT NULL,
  content BLOB NOT NULL,
  created_at BIGINT NOT NULL,
  deleted_at BIGINT
);
CREATE INDEX files_workspace ON files (workspace_id, deleted_at, id);

CREATE TABLE attachment_templates (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  name TEXT NOT NULL,
  file_id BIGINT NOT NULL REFERENCES files (id),
  created_at BIGINT NOT NULL
);
CREATE INDEX attachment_templates_workspace ON attachment_templates (workspace_id, id);

CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  uid TEXT NOT NULL UNIQUE,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  chat_id BIGINT NOT NULL REFERENCES chats (id),
  messenger_account_id BIGINT NOT NULL REFERENCES messenger_accounts (id),
  direction TEXT NOT NULL CHECK (direction IN ('sent', 'received')),
  status TEXT NOT NULL CHECK (status IN ('Pending', 'Sending', 'Sent', 'Failed')),
  failure_reason TEXT,
  text TEXT,
  file_id BIGINT REFERENCES files (id),
  template_id BIGINT REFERENCES attachment_templates (id),
  reply_to_id BIGINT REFERENCES messages (id),
  credits INTEGER NOT NULL DEFAULT 0,
  network_message_id TEXT,
  created_at BIGINT NOT NULL,
  sent_at BIGINT
);
CREATE INDEX messages_chat ON messages (chat_id, id);

CREATE TABLE reactions (
  message_id BIGINT NOT NULL REFERENCES messages (id),
  emoji TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (message_id, emoji)
);

-- Every credit movement, so quota_used can be checked against the sum of the ledger.
CREATE TABLE credit_ledger (
  id INTEGER PRIMARY KEY,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  message_id BIGINT REFERENCES messages (id),
  delta BIGINT NOT NULL,
  reason TEXT NOT NULL CHECK (reason IN ('debit', 'restore', 'period_reset', 'quota_change')),
  created_at BIGINT NOT NULL
);
CREATE INDEX credit_ledger_workspace ON credit_ledger (workspace_id, id);
CREATE UNIQUE INDEX credit_ledger_one_restore ON credit_ledger (message_id) WHERE reason = 'restore';

-- Durable background work. A worker claims a row by setting a lease inside a write transaction;
-- a row whose lease has run out is claimed again, so a killed process loses nothing.
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  ref_id BIGINT NOT NULL,
  queue_key BIGINT NOT NULL,
  run_at BIGINT NOT NULL,
  lease_owner TEXT,
  lease_until BIGINT,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  UNIQUE (kind, ref_id)
);
CREATE INDEX jobs_queue_head ON jobs (kind, queue_key, id);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

-- State of the simulated network that must be shared by every process.
CREATE TABLE sim_numbers (
  phone TEXT PRIMARY KEY,
  unreachable INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE sim_deliveries (
  message_uid TEXT PRIMARY KEY,
  network_message_id TEXT NOT NULL,
  delivered_at BIGINT NOT NULL
);
`,
};
