/**
 * Reads marked `cachedUntilWritten` are answered from memory on SQLite, and never once their rows may have
 * changed: a write by the same connection, a rollback, or a commit by another connection to the same file.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/store/database.js';
import { query } from '../../src/store/sql.js';
import { inSavepoint } from '../../src/store/sql-database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { tablesWrittenBy } from '../../src/store/sqlite-read-cache.js';
import { tempDir } from '../support/run-cli.js';

const CACHED = query<{ id: number; value: string }>('SELECT id, value FROM notes WHERE id = @id', { cachedUntilWritten: ['notes'] });
const UNCACHED = query<{ id: number; value: string }>('SELECT id, value FROM notes WHERE id = @id');
const SET = query('UPDATE notes SET value = @value WHERE id = @id');
const ADD = query('INSERT INTO notes (id, value) VALUES (@id, @value)');
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('SqliteDatabase: reads cached until their tables are written', () => {
  const open: Array<{ close(): unknown }> = [];
  afterEach(() => {
    for (const db of open.splice(0)) db.close();
  });

  function setup() {
    const path = join(tempDir('svc-cache-'), 'svc.db');
    const raw = openDatabase(path);
    raw.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, value TEXT NOT NULL); INSERT INTO notes VALUES (1, 'one')");
    const database = new SqliteDatabase(raw);
    // A second connection to the same file changes rows behind the first one's back.
    const other = new Database(path);
    open.push(other, raw);
    return { database, other };
  }

  it('answers again from memory: a change the cache cannot see (same turn, no write of its own) is not read', async () => {
    const { database, other } = setup();
    expect(await database.sql.get(CACHED, { id: 1 })).toEqual({ id: 1, value: 'one' });
    other.prepare("UPDATE notes SET value = 'changed' WHERE id = 1").run();
    // Within the same turn the data_version is not looked at again: the remembered row comes back, while the
    // uncached statement reads the database. This is what makes the cached read cheaper.
    expect(await database.sql.get(CACHED, { id: 1 })).toEqual({ id: 1, value: 'one' });
    expect(await database.sql.get(UNCACHED, { id: 1 })).toEqual({ id: 1, value: 'changed' });
  });

  it("another connection's commit is seen from the next turn of the event loop", async () => {
    const { database, other } = setup();
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'one' });
    other.prepare("UPDATE notes SET value = 'changed' WHERE id = 1").run();
    await nextTurn();
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'changed' });
  });

  it("a write transaction sees another process's commit of the same turn: the cache is checked when it begins", async () => {
    const { database, other } = setup();
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'one' });
    other.prepare("UPDATE notes SET value = 'changed' WHERE id = 1").run();
    const inTransaction = await database.write((tx) => tx.get(CACHED, { id: 1 }));
    expect(inTransaction).toMatchObject({ value: 'changed' });
  });

  it("its own write of the table is seen at once, inside a transaction and after it", async () => {
    const { database } = setup();
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'one' });
    await database.write(async (tx) => {
      await tx.run(SET, { id: 1, value: 'in tx' });
      expect(await tx.get(CACHED, { id: 1 })).toMatchObject({ value: 'in tx' });
    });
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'in tx' });
    await database.sql.run(SET, { id: 1, value: 'autocommit' });
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'autocommit' });
  });

  it('a rolled-back write leaves no row read in between behind', async () => {
    const { database } = setup();
    await expect(
      database.write(async (tx) => {
        await tx.run(SET, { id: 1, value: 'undone' });
        expect(await tx.get(CACHED, { id: 1 })).toMatchObject({ value: 'undone' });
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'one' });
    await database.write(async (tx) => {
      await inSavepoint(tx, async () => {
        await tx.run(SET, { id: 1, value: 'undone too' });
        expect(await tx.get(CACHED, { id: 1 })).toMatchObject({ value: 'undone too' });
      }).catch(() => undefined);
      await expect(inSavepoint(tx, async () => {
        await tx.run(SET, { id: 1, value: 'savepoint' });
        await tx.get(CACHED, { id: 1 });
        throw new Error('abort savepoint');
      })).rejects.toThrow('abort savepoint');
    });
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'undone too' });
  });

  it('another connection of this process is seen when its write commits, in the same turn', async () => {
    const { database } = setup();
    const peer = new SqliteDatabase(openDatabase(database.db.name));
    open.push(peer);
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'one' });
    await peer.write(async (tx) => {
      await tx.run(SET, { id: 1, value: 'by the peer' });
      // Not committed yet: the first connection still reads (and may remember) the committed row.
      expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'one' });
    });
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'by the peer' });
    await peer.sql.run(SET, { id: 1, value: 'autocommit by the peer' });
    expect(await database.sql.get(CACHED, { id: 1 })).toMatchObject({ value: 'autocommit by the peer' });
  });

  it('absent rows are not remembered, and remembered rows are frozen', async () => {
    const { database } = setup();
    expect(await database.sql.get(CACHED, { id: 2 })).toBeUndefined();
    await nextTurn();
    const other = new Database(database.db.name);
    open.push(other);
    other.prepare("INSERT INTO notes VALUES (2, 'two')").run();
    expect(await database.sql.get(CACHED, { id: 2 })).toMatchObject({ value: 'two' });
    await database.sql.run(ADD, { id: 3, value: 'three' });
    const row = (await database.sql.get(CACHED, { id: 3 }))!;
    expect(Object.isFrozen(row)).toBe(true);
  });

  it('knows which tables a statement writes', () => {
    expect(tablesWrittenBy('UPDATE api_tokens SET revoked_at = 1')).toEqual(['api_tokens']);
    expect(tablesWrittenBy('INSERT OR IGNORE INTO "Chats" (id) VALUES (1)')).toEqual(['chats']);
    expect(tablesWrittenBy('WITH x AS (SELECT 1) DELETE FROM jobs WHERE id IN (SELECT * FROM x)')).toEqual(['jobs']);
    expect(tablesWrittenBy('SELECT * FROM notes')).toEqual([]);
  });
});
