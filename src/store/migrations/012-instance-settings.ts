import type { MigrationSource } from './migration.js';

/**
 * Version 12: settings of the instance itself rather than of one process: the webhook URL policy (strict once
 * a server without `--dev` served the data, or an operator said so) and the webhook retry schedule. Every
 * process that opens the database reads them, so a local command follows the same rules as the server.
 */
export const INSTANCE_SETTINGS: MigrationSource = {
  version: 12,
  name: 'instance-settings',
  sql: `
CREATE TABLE instance_settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at BIGINT NOT NULL
);
`,
};
