import type { MigrationSource } from './migration.js';

/**
 * Version 3: partners, QR links and partner alert bookkeeping. Applies on top of 001-core alone
 * (workspaces.partner_id refers to partners.id; users and api_tokens are core's). Timestamps are INTEGER ms.
 */
export const PARTNER: MigrationSource = {
  version: 3,
  name: 'partner',
  sql: `
-- The secret is kept as-is: verifying an HS256 JWT needs the key itself, unlike a hashed API token.
CREATE TABLE partners (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  disabled_at BIGINT
);

-- A QR link connects one messenger account for one user. The code is the credential in the URL;
-- pairing_key is its public digest, carried in the rotating pairing payloads so a scan finds its link by index.
CREATE TABLE qr_links (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  pairing_key TEXT NOT NULL UNIQUE,
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  user_id BIGINT NOT NULL REFERENCES users (id),
  expires_at BIGINT NOT NULL,
  revoked_at BIGINT,
  connected_account_id BIGINT REFERENCES messenger_accounts (id),
  connected_at BIGINT,
  created_at BIGINT NOT NULL,
  CHECK (expires_at > created_at),
  CHECK ((connected_account_id IS NULL) = (connected_at IS NULL))
);
-- "A new link revokes the previous one", held by the database: inserting a second live link for a user
-- fails until the previous one is revoked in the same transaction, so concurrent requests cannot leave two.
CREATE UNIQUE INDEX qr_links_one_live_per_user ON qr_links (user_id) WHERE revoked_at IS NULL;
CREATE INDEX qr_links_workspace_user ON qr_links (workspace_id, user_id, id);

-- Threshold alerts (workspace:quota_near_full, workspace:quota_full, workspace:seats_full) fire once per
-- crossing: period_key is the quota period start for quota alerts and the seat count for seats_full, and the
-- primary key turns a second insert for the same crossing into a no-op (INSERT OR IGNORE, then emit if changed).
CREATE TABLE partner_alerts (
  workspace_id BIGINT NOT NULL REFERENCES workspaces (id),
  event TEXT NOT NULL CHECK (event IN ('workspace:quota_near_full', 'workspace:quota_full', 'workspace:seats_full')),
  period_key BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  PRIMARY KEY (workspace_id, event, period_key)
);
`,
};
