/**
 * Moves an instance from SQLite to PostgreSQL (`svc admin copy --data DIR --database URL`): every row of every
 * table, ids kept, in one PostgreSQL transaction, so a failed copy leaves the target as empty as it was. The
 * SQLite side is read inside one read transaction: a consistent snapshot even if a process still writes
 * (stop the server first anyway, or its later writes stay behind in SQLite).
 *
 * PostgreSQL cannot store the NUL character (U+0000) in text, which older releases accepted on SQLite. Such
 * text is copied with U+FFFD in each NUL's place, and the rows changed are counted per table, so the move
 * completes and the operator hears what was changed.
 */
import type pg from 'pg';
import type { Db } from '../database.js';
import { SvcError } from '../../wire/errors.js';
import { hasNul, replaceNul } from '../../wire/nul-text.js';

export interface CopiedTable {
  table: string;
  rows: number;
  /** Rows whose text held NUL characters, copied with U+FFFD in their place. */
  nulRowsReplaced: number;
}

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 500;

export async function copySqliteToPostgres(source: Db, pool: pg.Pool): Promise<CopiedTable[]> {
  const tables = tablesInDependencyOrder(source);
  const client = await pool.connect();
  const copied: CopiedTable[] = [];
  source.exec('BEGIN');
  try {
    await client.query('BEGIN');
    await refuseNonEmpty(client, tables);
    for (const table of tables) copied.push({ table, ...(await copyTable(source, client, table)) });
    await client.query('COMMIT');
    return copied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    source.exec('ROLLBACK');
    client.release();
  }
}

/** svc's tables with every table after the tables it references, so foreign keys hold row by row. */
function tablesInDependencyOrder(db: Db): string[] {
  const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>).map(
    (row) => row.name,
  );
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>): void => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    const references = db.prepare(`PRAGMA foreign_key_list("${name}")`).all() as Array<{ table: string }>;
    for (const reference of references) if (reference.table !== name && names.includes(reference.table)) visit(reference.table, path);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered;
}

async function refuseNonEmpty(client: pg.PoolClient, tables: string[]): Promise<void> {
  for (const table of tables) {
    const { rows } = await client.query(`SELECT EXISTS (SELECT 1 FROM "${table}") AS present`);
    if (rows[0]?.present === true) {
      throw new SvcError('conflict', `The PostgreSQL database already holds svc data (table ${table} has rows)`, {
        hint: 'copy into a new, empty database: `createdb svc_new`, then `svc admin copy --data DIR --database postgres://HOST/svc_new`',
      });
    }
  }
}

async function copyTable(source: Db, client: pg.PoolClient, table: string): Promise<{ rows: number; nulRowsReplaced: number }> {
  const { rows: targetColumns } = await client.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
    [table],
  );
  const target = new Set(targetColumns.map((row) => row.column_name));
  if (target.size === 0) throw new SvcError('unavailable', `PostgreSQL has no table ${table}`, { hint: 'run `svc admin migrate --database URL` first' });
  const sourceColumns = (source.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((row) => row.name);
  const columns = sourceColumns.filter((name) => target.has(name));
  const quoted = columns.map((name) => `"${name}"`).join(', ');
  const order = sourceColumns.includes('id') ? 'ORDER BY id' : 'ORDER BY rowid';
  let batch: unknown[][] = [];
  let count = 0;
  let nulRowsReplaced = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const values = batch.map((_, r) => `(${columns.map((__, c) => `$${r * columns.length + c + 1}`).join(', ')})`).join(', ');
    await client.query(`INSERT INTO "${table}" (${quoted}) VALUES ${values}`, batch.flat());
    count += batch.length;
    batch = [];
  };
  for (const row of source.prepare(`SELECT ${quoted} FROM "${table}" ${order}`).raw().iterate() as Iterable<unknown[]>) {
    if (row.some((value) => typeof value === 'string' && hasNul(value))) {
      nulRowsReplaced += 1;
      batch.push(row.map((value) => (typeof value === 'string' ? replaceNul(value) : value)));
    } else {
      batch.push(row);
    }
    if (batch.length === BATCH_ROWS) await flush();
  }
  await flush();
  // Identity columns continue after the copied ids, as SQLite's rowids would have.
  if (columns.includes('id')) {
    // Only identity ids have a sequence (listen sessions, for one, are named by a random text id).
    const { rows } = await client.query<{ sequence: string | null }>(`SELECT pg_get_serial_sequence('"${table}"', 'id') AS sequence`);
    const sequence = rows[0]?.sequence ?? null;
    if (sequence !== null) {
      await client.query(`SELECT setval($1, GREATEST(MAX(id), 1), MAX(id) IS NOT NULL) FROM "${table}"`, [sequence]);
    }
  }
  return { rows: count, nulRowsReplaced };
}
