import { CORE } from './001-core.js';
import { WEBHOOKS } from './002-webhooks.js';
import { PARTNER } from './003-partner.js';
import { DELIVERY_INDEXES } from './004-delivery-indexes.js';
import { OWNER_MAIL } from './005-owner-mail.js';
import { LIMITS } from './006-limits.js';
import { PARTNER_LISTEN } from './007-partner-listen.js';
import { DELIVERY_INDEX_TRIM } from './008-delivery-index-trim.js';
import { RATE_LIMITS } from './009-rate-limits.js';
import { RATE_LIMIT_COUNTERS } from './011-rate-limit-counters.js';
import { INSTANCE_SETTINGS } from './012-instance-settings.js';
import { CHAT_PAGE_INDEX } from './013-chat-page-index.js';
import { DELIVERY_MSG_INDEX_DROP } from './014-delivery-msg-index-drop.js';
import { SQL_ASSERT } from './015-sql-assert.js';
import { SEND_PATH_FOREIGN_KEYS } from './016-send-path-foreign-keys.js';
import { EVENT_VIEWS_FUNCTION } from './017-event-views-function.js';
import { CREDIT_LEDGER_DEBIT_INDEX } from './018-credit-ledger-debit-index.js';
import { ACCOUNTS_BY_USER_INDEX } from './019-accounts-by-user-index.js';
import { SIM_HAND_OVER_FUNCTION } from './020-sim-hand-over-function.js';
import { DELIVERY_PICK_FUNCTIONS } from './021-delivery-pick-functions.js';
import { ENQUEUE_LEASING_FUNCTION } from './022-enqueue-leasing-function.js';
import { forPostgres, forSqlite, type Migration, type MigrationSource } from './migration.js';

export type { Migration, MigrationSource };

/**
 * The one list of svc's schema changes, for both stores, oldest first. Forward-only: a migration, once
 * released, is never edited; changes come as a new version. Most are written once (./migration.ts says how a
 * shared statement reads on each store); the few that differ by more than column types give both texts.
 */
export const MIGRATION_SOURCES: readonly MigrationSource[] = [
  CORE,
  WEBHOOKS,
  PARTNER,
  DELIVERY_INDEXES,
  OWNER_MAIL,
  LIMITS,
  PARTNER_LISTEN,
  DELIVERY_INDEX_TRIM,
  RATE_LIMITS,
  RATE_LIMIT_COUNTERS,
  INSTANCE_SETTINGS,
  CHAT_PAGE_INDEX,
  DELIVERY_MSG_INDEX_DROP,
  SQL_ASSERT,
  SEND_PATH_FOREIGN_KEYS,
  EVENT_VIEWS_FUNCTION,
  CREDIT_LEDGER_DEBIT_INDEX,
  ACCOUNTS_BY_USER_INDEX,
  SIM_HAND_OVER_FUNCTION,
  DELIVERY_PICK_FUNCTIONS,
  ENQUEUE_LEASING_FUNCTION,
];

/** What SQLite runs (src/store/database.ts), recorded in `user_version`. */
export const MIGRATIONS: readonly Migration[] = MIGRATION_SOURCES.map(forSqlite);
/** What PostgreSQL runs (src/store/postgres/pg-migrate.ts), recorded in `svc_schema`. */
export const PG_MIGRATIONS: readonly Migration[] = MIGRATION_SOURCES.map(forPostgres);
