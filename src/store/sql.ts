/**
 * The query layer shared by both stores: SQL is written once per aggregate, with `@name` parameters, and
 * compiled on first use for the dialect of the database it runs on (better-sqlite3 takes `@name` as it is;
 * PostgreSQL gets `$1, $2...`). Where the dialects differ, a statement carries one text per dialect.
 */
import { hasNul, nulRefused } from '../wire/nul-text.js';

import type { DeferredWrites } from './deferred-writes.js';

export type Dialect = 'sqlite' | 'postgres';

/** Named parameters of a statement; values are numbers, strings, Buffers or null (booleans are 0/1). */
export type Params = Record<string, unknown>;

/** One statement, written once; `Row` is the shape of a result row. */
export interface Statement<Row = unknown> {
  readonly id: number;
  readonly text: Readonly<Record<Dialect, string>>;
  readonly options?: StatementOptions;
  /** Phantom field carrying the row type. */
  readonly row?: Row;
}

export interface StatementOptions {
  /**
   * The embedded store may answer this single-row read from memory until one of the tables it reads is
   * written: by its own connection (a statement that inserts into, updates or deletes from it) or by another
   * connection (a commit, seen through PRAGMA data_version once per turn of the event loop). For hot reads of
   * rows that rarely change; callers share the row and must not change it. PostgreSQL always asks the
   * database: its replicas write behind each other's backs.
   */
  cachedUntilWritten?: readonly string[];
}

let nextStatementId = 0;

/** A statement for both dialects; pass `{ sqlite, postgres }` where they differ. */
export function query<Row = unknown>(text: string | Readonly<Record<Dialect, string>>, options?: StatementOptions): Statement<Row> {
  nextStatementId += 1;
  return { id: nextStatementId, text: typeof text === 'string' ? { sqlite: text, postgres: text } : text, options };
}

/**
 * A statement only PostgreSQL runs: one built on what SQLite lacks (a writing CTE), where the store runs other
 * statements on SQLite instead. Preparing it on SQLite fails loudly rather than answering nothing.
 */
export function postgresOnly<Row = unknown>(text: string): Statement<Row> {
  return query<Row>({ sqlite: '', postgres: text });
}

/** A statement only SQLite runs, where PostgreSQL runs one `postgresOnly` statement instead. */
export function sqliteOnly<Row = unknown>(text: string): Statement<Row> {
  return query<Row>({ sqlite: text, postgres: '' });
}

/**
 * A list of ids bound as one value: an array on PostgreSQL, read as `= ANY(@ids::bigint[])` (the planner then knows
 * how many there are; a JSON list it takes for 100 rows, and with a table of a few thousand it scanned the table),
 * JSON text on SQLite, read as `IN (SELECT value FROM json_each(@ids))`.
 */
export const idList = (sql: Pick<SqlExecutor, 'dialect'>, ids: readonly number[]): readonly number[] | string =>
  sql.dialect === 'postgres' ? ids : JSON.stringify(ids);

/** Runs statements on one connection or pool; in a transaction, on that transaction's connection. */
export interface SqlExecutor {
  readonly dialect: Dialect;
  all<Row>(statement: Statement<Row>, params?: Params): Promise<Row[]>;
  get<Row>(statement: Statement<Row>, params?: Params): Promise<Row | undefined>;
  /** Runs a statement that returns no rows; resolves with the number of rows changed. */
  run(statement: Statement, params?: Params): Promise<number>;
  /**
   * What the writes of one open transaction remember between them (a row already locked by an earlier write
   * of the same group commit); emptied when a savepoint rolls back, absent outside write transactions.
   */
  readonly memo?: Map<string, unknown>;
  /** Rows the open write transaction writes at its end, in one statement (absent outside write transactions). */
  readonly deferred?: DeferredWrites;
  /** PostgreSQL, in a write transaction: its every statement runs on its generic plan (`WriteOptions.genericPlans`). */
  readonly genericPlans?: boolean;
  /**
   * PostgreSQL, in a write transaction: sends a write whose answer decides nothing before the COMMIT (no rule
   * checked on it: check in the statement, `svc_assert`), so what follows it (more statements, the COMMIT) goes
   * without waiting for that answer: a round trip fewer. Statements sent after it still run after it (one
   * connection, in order). `onRows` gets its rows when they arrive, before the COMMIT's answer (it must not
   * throw: the COMMIT may be on its way). Its failure fails the transaction at the COMMIT. Not for a write
   * inside a savepoint (its failure would not stay there). Absent elsewhere: run the statement.
   */
  readonly sendBeforeCommit?: <Row>(statement: Statement<Row>, params?: Params, onRows?: (rows: Row[]) => void) => void;
}

/**
 * A write whose answer decides nothing before the COMMIT: sent unanswered where `sql` can
 * (`SqlExecutor.sendBeforeCommit`), run and awaited where it cannot; `onRows` gets its rows either way.
 */
export async function writeUnanswered<Row>(sql: SqlExecutor, statement: Statement<Row>, params: Params, onRows?: (rows: Row[]) => void): Promise<void> {
  if (sql.sendBeforeCommit !== undefined) sql.sendBeforeCommit(statement, params, onRows);
  else onRows?.(await sql.all(statement, params));
}

const GENERIC_PLAN = postgresOnly('SET LOCAL plan_cache_mode = force_generic_plan');
const CHOSEN_PLAN = postgresOnly('SET LOCAL plan_cache_mode = auto');

/**
 * Runs `statement` on PostgreSQL's generic plan when inside a transaction: for a statement that PostgreSQL would
 * otherwise plan anew at every call (with array parameters, or parameters whose values move the estimates, the
 * plan made for the values given always looks cheaper than the generic one, so the plan cache never settles on
 * it) and whose generic plan runs as fast. The two settings go with the statement (pipelined), no round trip of
 * their own, and the transaction's other statements keep PostgreSQL's choice. Elsewhere it simply runs it.
 */
export async function allOnGenericPlan<Row>(sql: SqlExecutor, statement: Statement<Row>, params: Params): Promise<Row[]> {
  if (sql.dialect !== 'postgres' || sql.memo === undefined || sql.genericPlans === true) return sql.all(statement, params);
  const [, rows] = await Promise.all([sql.run(GENERIC_PLAN), sql.all(statement, params), sql.run(CHOSEN_PLAN)]);
  return rows;
}

/** `@name` parameters turned into `$n`, with the order in which values are passed. */
export interface PositionalSql {
  text: string;
  names: string[];
}

/** An `@name` parameter (not `@@`, not `:@`); global, so use it with `replace`, never `exec`. */
export const NAMED_PARAMETER = /(?<![@:])@([A-Za-z_][A-Za-z0-9_]*)/g;

/** Rewrites `@name` parameters as PostgreSQL's `$n`; a name used twice keeps one position. */
export function toPositional(text: string): PositionalSql {
  const names: string[] = [];
  const rewritten = text.replace(NAMED_PARAMETER, (_match, name: string) => {
    let index = names.indexOf(name);
    if (index === -1) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text: rewritten, names };
}

/**
 * The values of `params` in positional order; a name the caller did not give is an error, as in SQLite.
 * Every value bound on either store passes here, so this is where the one rule on NUL holds for both: a text
 * value holding U+0000 is refused as invalid input (PostgreSQL would fail on it, SQLite would keep it), from
 * any caller, HTTP or the CLI's local engine alike.
 */
export function positionalValues(names: readonly string[], params: Params | undefined): unknown[] {
  return names.map((name) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`missing named parameter "${name}"`);
    if (typeof value === 'string' ? hasNul(value) : Array.isArray(value) && value.some((item) => typeof item === 'string' && hasNul(item))) {
      throw nulRefused('a text value');
    }
    return value;
  });
}
