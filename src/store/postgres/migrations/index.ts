import type { Migration } from '../../migrations/index.js';
import { CORE_SCHEMA_PG } from './001-core.js';
import { WEBHOOKS_SCHEMA_PG } from './002-webhooks.js';
import { PARTNER_SCHEMA_PG } from './003-partner.js';
import { DELIVERY_INDEXES_SCHEMA_PG } from './004-delivery-indexes.js';
import { OWNER_MAIL_SCHEMA_PG } from './005-owner-mail.js';
import { LIMITS_SCHEMA_PG } from './006-limits.js';
import { PARTNER_LISTEN_SCHEMA_PG } from './007-partner-listen.js';
import { DELIVERY_INDEX_TRIM_SCHEMA_PG } from './008-delivery-index-trim.js';
import { RATE_LIMITS_SCHEMA_PG } from './009-rate-limits.js';
import { RATE_LIMIT_COUNTERS_SCHEMA_PG } from './011-rate-limit-counters.js';
import { INSTANCE_SETTINGS_SCHEMA_PG } from './012-instance-settings.js';

/** PostgreSQL's migrations: forward-only, the same version numbers and names as SQLite's (src/store/migrations). */
export const PG_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'core', sql: CORE_SCHEMA_PG },
  { version: 2, name: 'webhooks', sql: WEBHOOKS_SCHEMA_PG },
  { version: 3, name: 'partner', sql: PARTNER_SCHEMA_PG },
  { version: 4, name: 'delivery-indexes', sql: DELIVERY_INDEXES_SCHEMA_PG },
  { version: 5, name: 'owner-mail', sql: OWNER_MAIL_SCHEMA_PG },
  { version: 6, name: 'limits', sql: LIMITS_SCHEMA_PG },
  { version: 7, name: 'partner-listen', sql: PARTNER_LISTEN_SCHEMA_PG },
  { version: 8, name: 'delivery-index-trim', sql: DELIVERY_INDEX_TRIM_SCHEMA_PG },
  { version: 9, name: 'rate-limits', sql: RATE_LIMITS_SCHEMA_PG },
  { version: 11, name: 'rate-limit-counters', sql: RATE_LIMIT_COUNTERS_SCHEMA_PG },
  { version: 12, name: 'instance-settings', sql: INSTANCE_SETTINGS_SCHEMA_PG },
];
