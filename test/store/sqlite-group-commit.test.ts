/**
 * Grouped writes on SQLite: the writes asked for in one turn of the event loop share a transaction, and a
 * failing one undoes only its own writes, whether the batch ran with a savepoint per write or without.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { query, type SqlExecutor } from '../../src/store/sql.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { tempDir } from '../support/run-cli.js';

const ADD = query('INSERT INTO notes (id) VALUES (@id)');
const IDS = query<{ id: number }>('SELECT id FROM notes ORDER BY id');

describe('SqliteDatabase: group commit', () => {
  const open: SqliteDatabase[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.close();
  });

  function setup(): SqliteDatabase {
    const raw = openDatabase(join(tempDir('svc-group-'), 'svc.db'));
    raw.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY)');
    const database = new SqliteDatabase(raw);
    open.push(database);
    return database;
  }

  /** A grouped write adding `ids`, failing after them when `fail` is set. */
  const adding = (database: SqliteDatabase, ids: number[], fail = false) =>
    database.write(async (tx: SqlExecutor) => {
      for (const id of ids) await tx.run(ADD, { id });
      if (fail) throw new Error(`write ${ids.join(',')} refused`);
      return ids;
    }, { grouped: true });

  const stored = async (database: SqliteDatabase) => (await database.sql.all(IDS)).map((row) => row.id);

  it('a failing write in a batch undoes only its own rows; the others commit and resolve', async () => {
    const database = setup();
    const results = await Promise.allSettled([adding(database, [1]), adding(database, [2, 3], true), adding(database, [4])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('write 2,3 refused'));
    expect(await stored(database)).toEqual([1, 4]);

    // The next batch (run with a savepoint per write after a failure) and the one after it (without) agree.
    for (const base of [10, 20]) {
      const next = await Promise.allSettled([adding(database, [base + 1]), adding(database, [base + 2], true), adding(database, [base + 3])]);
      expect(next.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    }
    expect(await Promise.all([adding(database, [31]), adding(database, [32])])).toEqual([[31], [32]]);
    expect(await stored(database)).toEqual([1, 4, 11, 13, 21, 23, 31, 32]);
  });

  it('a write alone in its batch fails with its own error and leaves nothing behind', async () => {
    const database = setup();
    await expect(adding(database, [1, 2], true)).rejects.toThrow('write 1,2 refused');
    expect(await adding(database, [3])).toEqual([3]);
    expect(await stored(database)).toEqual([3]);
  });

  it('a duplicate key refused by the database fails only its write', async () => {
    const database = setup();
    await adding(database, [1]);
    const results = await Promise.allSettled([adding(database, [2]), adding(database, [3, 1]), adding(database, [4])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toContain('UNIQUE constraint failed');
    expect(await stored(database)).toEqual([1, 2, 4]);
  });
});
