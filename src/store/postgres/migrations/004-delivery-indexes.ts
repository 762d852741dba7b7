/** Version 4 on PostgreSQL: per-subscription indexes of pending and in-flight deliveries. */
export const DELIVERY_INDEXES_SCHEMA_PG = `
CREATE INDEX webhook_deliveries_pending_sub ON webhook_deliveries (subscription_id, next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_delivering_sub ON webhook_deliveries (subscription_id, lease_until)
  WHERE status = 'delivering';
`;
