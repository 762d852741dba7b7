import { resolve } from 'node:path';
import { redactDatabaseUrl } from '../store/postgres/database-url.js';

/** A `postgres://` URL as svc prints it: the password masked. */
export { redactDatabaseUrl };

/**
 * The store a local engine opens, as svc prints it: the SQLite file's absolute path, or the PostgreSQL URL
 * with its password masked (it is never printed).
 */
export function describeStore(options: { dataDir: string; databaseUrl?: string | undefined }): string {
  return options.databaseUrl === undefined
    ? `SQLite ${resolve(options.dataDir, 'svc.db')}`
    : `PostgreSQL ${redactDatabaseUrl(options.databaseUrl)}`;
}
