import { CORE_SCHEMA } from './001-core.js';
import { WEBHOOKS_SCHEMA } from './002-webhooks.js';
import { PARTNER_SCHEMA } from './003-partner.js';
import { DELIVERY_INDEXES_SCHEMA } from './004-delivery-indexes.js';
import { OWNER_MAIL_SCHEMA } from './005-owner-mail.js';
import { LIMITS_SCHEMA } from './006-limits.js';
import { PARTNER_LISTEN_SCHEMA } from './007-partner-listen.js';
import { DELIVERY_INDEX_TRIM_SCHEMA } from './008-delivery-index-trim.js';
import { RATE_LIMITS_SCHEMA } from './009-rate-limits.js';
import { RATE_LIMIT_COUNTERS_SCHEMA } from './011-rate-limit-counters.js';
import { INSTANCE_SETTINGS_SCHEMA } from './012-instance-settings.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Forward-only: a migration, once released, is never edited; changes come as a new version. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'core', sql: CORE_SCHEMA },
  { version: 2, name: 'webhooks', sql: WEBHOOKS_SCHEMA },
  { version: 3, name: 'partner', sql: PARTNER_SCHEMA },
  { version: 4, name: 'delivery-indexes', sql: DELIVERY_INDEXES_SCHEMA },
  { version: 5, name: 'owner-mail', sql: OWNER_MAIL_SCHEMA },
  { version: 6, name: 'limits', sql: LIMITS_SCHEMA },
  { version: 7, name: 'partner-listen', sql: PARTNER_LISTEN_SCHEMA },
  { version: 8, name: 'delivery-index-trim', sql: DELIVERY_INDEX_TRIM_SCHEMA },
  { version: 9, name: 'rate-limits', sql: RATE_LIMITS_SCHEMA },
  { version: 11, name: 'rate-limit-counters', sql: RATE_LIMIT_COUNTERS_SCHEMA },
  { version: 12, name: 'instance-settings', sql: INSTANCE_SETTINGS_SCHEMA },
];
