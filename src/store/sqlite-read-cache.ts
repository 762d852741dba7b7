/**
 * Rows of statements marked `cachedUntilWritten` (sql.ts), remembered by the embedded store between writes
 * of the tables they read. A write by this connection forgets the rows of its tables when the statement runs
 * (before it commits: this connection reads its own uncommitted writes anyway); a rollback, of a transaction
 * or to a savepoint, forgets everything (rows read since may hold what it undid). Another connection of this
 * process to the same file (a second engine on one directory) is told which tables a write of this one
 * changed once it is committed, at once. A commit by another process (the CLI) is seen through PRAGMA
 * data_version, read at most once per turn of the event loop and again when a write transaction begins, and
 * forgets everything.
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

/** The caches of every connection of this process, by database file. */
const cachesByFile = new Map<string, Set<SqliteReadCache>>();

export class SqliteReadCache {
  private readonly rowsByStatement = new Map<number, Map<string, unknown>>();
  /** The cached statements that read each table. */
  private readonly readersOf = new Map<string, Set<number>>();
  /** Tables written by the open transaction: the other connections' caches forget them when it commits. */
  private readonly uncommitted = new Set<string>();
  /** This cache and those of the other connections of this process to the same file. */
  private readonly sameFile: Set<SqliteReadCache>;
  private seenVersion: number;
  private checkedThisTurn = false;

  /** `dataVersion` reads PRAGMA data_version on the connection (to `file`) the cached statements run on. */
  constructor(
    private readonly file: string,
    private readonly dataVersion: () => number,
  ) {
    this.seenVersion = dataVersion();
    // An in-memory database is private to its connection.
    const shared = file !== '' && file !== ':memory:';
    this.sameFile = shared ? (cachesByFile.get(file) ?? new Set()) : new Set();
    if (shared) cachesByFile.set(file, this.sameFile);
    this.sameFile.add(this);
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

  /**
   * Called for every write statement this connection runs, with the tables it writes: this cache forgets
   * them at once, the other connections' caches when the write is committed (now, outside a transaction).
   */
  written(tables: readonly string[], inTransaction: boolean): void {
    this.forget(tables);
    if (inTransaction) for (const table of tables) this.uncommitted.add(table);
    else this.tellOthers(tables);
  }

  /**
   * A write transaction began (BEGIN IMMEDIATE holds the write lock): another process may have committed since
   * this turn's data_version check, and inside the transaction every read must see it (a token revoked, an
   * account suspended a moment ago), so the version is read again now.
   */
  writeTransactionBegan(): void {
    this.forgetIfVersionChanged();
  }

  /** The open transaction committed. */
  committed(): void {
    if (this.uncommitted.size === 0) return;
    this.tellOthers([...this.uncommitted]);
    this.uncommitted.clear();
  }

  /** After a rollback (`transaction`: of the whole transaction, not to a savepoint): what was read since the undone writes may be gone. */
  rolledBack(transaction: boolean): void {
    this.rowsByStatement.clear();
    if (transaction) this.uncommitted.clear();
  }

  /** The connection closes. */
  close(): void {
    this.sameFile.delete(this);
    if (this.sameFile.size === 0) cachesByFile.delete(this.file);
  }

  private forget(tables: Iterable<string>): void {
    for (const table of tables) {
      const readers = this.readersOf.get(table);
      if (readers !== undefined) for (const id of readers) this.rowsByStatement.delete(id);
    }
  }

  private tellOthers(tables: readonly string[]): void {
    for (const other of this.sameFile) if (other !== this) other.forget(tables);
  }

  private forgetForeignCommits(): void {
    if (this.checkedThisTurn) return;
    this.checkedThisTurn = true;
    setImmediate(() => {
      this.checkedThisTurn = false;
    }).unref();
    this.forgetIfVersionChanged();
  }

  private forgetIfVersionChanged(): void {
    const version = this.dataVersion();
    if (version !== this.seenVersion) {
      this.seenVersion = version;
      this.rowsByStatement.clear();
    }
  }
}

function cacheKey(values: readonly unknown[]): string {
  let key = '';
  for (const value of values) key += `${Buffer.isBuffer(value) ? value.toString('hex') : String(value)}\u0000`;
  return key;
}
