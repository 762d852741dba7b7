/** Version 8, as on SQLite (src/store/migrations/008-delivery-index-trim.ts). */
export const DELIVERY_INDEX_TRIM_SCHEMA_PG = `
DROP INDEX IF EXISTS webhook_deliveries_due;
DROP INDEX IF EXISTS webhook_deliveries_leased;
`;
