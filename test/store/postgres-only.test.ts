/** A statement written for PostgreSQL alone fails loudly on SQLite instead of answering nothing. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { postgresOnly } from '../../src/store/sql.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { tempDir } from '../support/run-cli.js';

describe('postgresOnly', () => {
  it('is refused by the SQLite store, naming the statement', async () => {
    const database = new SqliteDatabase(openDatabase(join(tempDir('svc-pgonly-'), 'svc.db')));
    try {
      const statement = postgresOnly<{ id: number }>('WITH d AS (DELETE FROM jobs RETURNING id) SELECT id FROM d');
      await expect(database.sql.get(statement)).rejects.toThrow(/PostgreSQL-only: WITH d AS \(DELETE FROM jobs/);
      await expect(database.write((tx) => tx.run(statement))).rejects.toThrow('PostgreSQL-only');
    } finally {
      await database.close();
    }
  });
});
