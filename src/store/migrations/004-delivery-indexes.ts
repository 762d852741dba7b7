import type { MigrationSource } from './migration.js';

/**
 * Version 4: indexes that keep claiming webhook deliveries cheap however long the outbox queue grows. A claim
 * visits each subscription that has work (a skip-scan over the first index) and reads at most its free slots
 * of due rows in order; the second index counts a subscription's live leases without touching finished rows.
 */
export const DELIVERY_INDEXES: MigrationSource = {
  version: 4,
  name: 'delivery-indexes',
  sql: `
-- Due pending rows of one subscription, oldest first (rowid breaks ties); also lists the subscriptions with
-- pending rows, one index seek each.
CREATE INDEX webhook_deliveries_pending_sub ON webhook_deliveries (subscription_id, next_attempt_at)
  WHERE status = 'pending';
-- Deliveries in flight per subscription (live leases for the cap, expired ones to take over).
CREATE INDEX webhook_deliveries_delivering_sub ON webhook_deliveries (subscription_id, lease_until)
  WHERE status = 'delivering';
`,
};
