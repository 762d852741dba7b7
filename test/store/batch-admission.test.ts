/**
 * A grouped write's admission (`BatchAdmission`), on both stores: checked once per batch for all its writes,
 * inside the batch's transaction; a write not admitted never runs and is answered with its refusal, while the
 * others commit, whether the batch ran whole or with a savepoint per write. On PostgreSQL the check rides with
 * the batch's first round trip.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { query, type SqlExecutor } from '../../src/store/sql.js';
import type { BatchAdmission, SqlDatabase } from '../../src/store/sql-database.js';
import { postgresForThisFile, sqliteAndPostgres } from '../support/store-engine.js';

const CREATE = query('CREATE TABLE IF NOT EXISTS admitted_notes (id INTEGER PRIMARY KEY)');
const ADD = query('INSERT INTO admitted_notes (id) VALUES (@id)');
const IDS = query<{ id: number }>('SELECT id FROM admitted_notes ORDER BY id');
const CLEAR = query('DELETE FROM admitted_notes');
const ONE = query<{ one: number }>('SELECT 1 AS one');

const pgUrl = postgresForThisFile('batch_admission');

describe.each(sqliteAndPostgres(pgUrl))('grouped writes with an admission, on %s', (_name, open) => {
  let database: SqlDatabase | undefined;
  afterEach(async () => {
    if (database !== undefined) await database.sql.run(CLEAR);
    await database?.close();
  });

  /** An admission that admits the odd ids, asking the database once per batch; `batches` gets each call's args. */
  function oddIds(batches: number[][]): BatchAdmission['check'] {
    return async (tx: SqlExecutor, args: unknown[]) => {
      expect(await tx.get(ONE)).toEqual({ one: 1 });
      batches.push(args as number[]);
      return (args as number[]).map((id) => id % 2 === 1);
    };
  }

  it('refuses the writes not admitted, without running them, and commits the rest of the batch', async () => {
    database = open();
    await database.sql.run(CREATE);
    const batches: number[][] = [];
    const check = oddIds(batches);
    const ran: number[] = [];
    const adding = (id: number, fail = false) =>
      database!.write(async (tx) => {
        ran.push(id);
        await tx.run(ADD, { id });
        if (fail) throw new Error(`write ${id} failed`);
        return id;
      }, { grouped: true, admission: { check, arg: id, refusal: () => new Error(`${id} not admitted`) } });

    const first = await Promise.allSettled([adding(1), adding(2), adding(3)]);
    expect(first.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([1, '2 not admitted', 3]);
    expect(batches).toEqual([[1, 2, 3]]);
    expect(ran).toEqual([1, 3]);

    // A batch that also holds a failing write runs again with a savepoint per write: the refusal stands, the
    // failure undoes only itself.
    const second = await Promise.allSettled([adding(5), adding(6), adding(7, true), adding(9)]);
    expect(second.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([5, '6 not admitted', 'write 7 failed', 9]);
    expect(ran.filter((id) => id === 6)).toEqual([]);
    expect((await database.sql.all(IDS)).map((row) => row.id)).toEqual([1, 3, 5, 9]);
  });
});
