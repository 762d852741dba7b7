/** Version 12, as on SQLite (src/store/migrations/012-instance-settings.ts). */
export const INSTANCE_SETTINGS_SCHEMA_PG = `
CREATE TABLE instance_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
`;
