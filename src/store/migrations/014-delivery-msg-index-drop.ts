import type { MigrationSource } from './migration.js';

/**
 * Version 14: drops `webhook_deliveries_msg` (webhook_msg_id). No statement looks a delivery up by its
 * `webhook-id`, and every delivery writes three row versions (queued, leased, finished), none of them a HOT
 * update on PostgreSQL (the status is in partial index predicates), so each paid an entry in this index, the
 * widest of the table (a 30-character text key).
 */
export const DELIVERY_MSG_INDEX_DROP: MigrationSource = {
  version: 14,
  name: 'delivery-msg-index-drop',
  sql: `
DROP INDEX IF EXISTS webhook_deliveries_msg;
`,
};
