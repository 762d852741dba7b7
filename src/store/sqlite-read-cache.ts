/**
 * Rows of statements marked `cachedUntilWritten` (sql.ts), remembered by the embedded store between writes
 * of the tables they read. A write by this connection forgets the rows of its tables when the statement runs
 * (before it commits: this connection reads its own uncommitted writes anyway); a rollback, of a transaction
 * or to a savepoint, forgets everything (rows read since may hold what it undid). A commit by another connection (the CLI in another process, a second engine on the same
 * directory) is seen through PRAGMA data_version, read at most once per turn of the event loop, and forgets
 * everything.
 */
import type { Statement } from './sql.js';

/** Rows kept per statement at most; past that its rows are dropped (a flood of distinct keys stays bounded). */
const MAX_ROWS_PER_STATEMENT = 10_000;

/** `INSERT [OR x] INTO t`, `REPLACE INTO t`, `UPDATE [OR x] t`, `DELETE FROM t`: the tables a statement writes. */
const WRITE_TARGET = /\b(?:(?:INSERT|REPLACE)(?:\s+OR\s+\w+)?\s+INTO|UPDATE(?:\s+OR\s+\w+)?|DELETE\s+FROM)\s+"?(\w+)"?/gi;

/** The tables `sql` inserts into, updates or deletes from, lower-cased. */
export function tablesWrittenBy(sql: string): string[] {
  return [...sql.matchAll(WRITE_TARGET)].map((match) => match[1]!.toLowerCase());
}

/** `ROLLBACK` or `ROLLBACK TO [SAVEPOINT] name`. */
export const rollsBack = (sql: string): boolean => /^\s*ROLLBACK\b/i.test(sql);

export class SqliteReadCache {
  private readonly rowsByStatement = new Map<number, Map<string, unknown>>();
  /** The cached statements that read each table. */
  private readonly readersOf = new Map<string, Set<number>>();
  private seenVersion: number;
  private checkedThisTurn = false;

  /** `dataVersion` reads PRAGMA data_version on the connection the cached statements run on. */
  constructor(private readonly dataVersion: () => number) {
    this.seenVersion = dataVersion();
  }

  /** The remembered row of `statement` for `values`, or what `read` returns (remembered unless absent). */
  read<Row>(statement: Statement<Row>, tables: readonly string[], values: readonly unknown[], read: () => Row | undefined): Row | undefined {
    this.forgetForeignCommits();
    const key = cacheKey(values);
    let rows = this.rowsByStatement.get(statement.id);
    if (rows?.has(key) === true) return rows.get(key) as Row;
    const row = read();
    // An absent row is not remembered: a flood of unknown keys (bad tokens) would only fill memory.
    if (row === undefined) return row;
    if (rows === undefined || rows.size >= MAX_ROWS_PER_STATEMENT) {
      rows = new Map();
      this.rowsByStatement.set(statement.id, rows);
      for (const table of tables) {
        let readers = this.readersOf.get(table);
        if (readers === undefined) this.readersOf.set(table, (readers = new Set()));
        readers.add(statement.id);
      }
    }
    // Callers share the remembered row: frozen, so none of them can change it under the others.
    rows.set(key, Object.freeze(row));
    return row;
  }

  /** Called for every write statement this connection runs, with the tables it writes. */
  written(tables: readonly string[]): void {
    for (const table of tables) {
      const readers = this.readersOf.get(table);
      if (readers !== undefined) for (const id of readers) this.rowsByStatement.delete(id);
    }
  }

  /** After a rollback: what was read since the undone writes may be gone. */
  forgetAll(): void {
    this.rowsByStatement.clear();
  }

  private forgetForeignCommits(): void {
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    setImmediate(() => {
      this.checkedThisTurn = false;
    }).unref();
    const version = this.dataVersion();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.forgetAll();
    }
  }
}

function cacheKey(values: readonly unknown[]): string {
  let key = '';
  for (const value of values) key += `${Buffer.isBuffer(value) ? value.toString('hex') : String(value)}\u0000`;
  return key;
}
