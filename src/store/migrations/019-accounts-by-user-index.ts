import type { MigrationSource } from './migration.js';

/**
 * Version 19: a user's latest account found by index. The partner API's user list and user reads take each
 * user's latest account (`USER_COLUMNS`, src/store/partner-store.ts), and a QR link's connect takes its user's
 * (`BY_USER`, src/store/account-store.ts, in a write transaction); with no index on `user_id`, SQLite read every
 * account of every workspace once per user (measured: 100,000 accounts, a workspace's 20 users listed in 35 ms,
 * the server's one thread blocked meanwhile; 0.03 ms with this index). Partial: accounts connected by an operator
 * have no user.
 */
export const ACCOUNTS_BY_USER_INDEX: MigrationSource = {
  version: 19,
  name: 'accounts-by-user-index',
  sql: `CREATE INDEX messenger_accounts_user ON messenger_accounts (user_id, id) WHERE user_id IS NOT NULL;`,
};
