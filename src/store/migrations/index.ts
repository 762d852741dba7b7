import { CORE_SCHEMA } from './001-core.js';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Forward-only: a migration, once released, is never edited; changes come as a new version. */
export const MIGRATIONS: readonly Migration[] = [{ version: 1, name: 'core', sql: CORE_SCHEMA }];
