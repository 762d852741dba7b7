/**
 * Version 7 (PostgreSQL, as src/store/migrations/007-partner-listen.ts): listen sessions of a partner beside
 * those of a workspace; exactly one of workspace_id and partner_id.
 */
export const PARTNER_LISTEN_SCHEMA_PG = `
ALTER TABLE listen_sessions ALTER COLUMN workspace_id DROP NOT NULL;
ALTER TABLE listen_sessions ADD COLUMN partner_id BIGINT REFERENCES partners (id);
ALTER TABLE listen_sessions ADD CONSTRAINT listen_sessions_scope CHECK ((workspace_id IS NULL) <> (partner_id IS NULL));
`;
