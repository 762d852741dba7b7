import type { Db } from './database.js';
import type { Statement } from 'better-sqlite3';

interface TransactionStatements {
  begin: Statement;
  commit: Statement;
  rollback: Statement;
  savepoint: Statement;
  release: Statement;
  rollbackTo: Statement;
}

const prepared = new WeakMap<Db, TransactionStatements>();

function statementsOf(db: Db): TransactionStatements {
  let statements = prepared.get(db);
  if (statements === undefined) {
    statements = {
      begin: db.prepare('BEGIN IMMEDIATE'),
      commit: db.prepare('COMMIT'),
      rollback: db.prepare('ROLLBACK'),
      savepoint: db.prepare('SAVEPOINT nested'),
      release: db.prepare('RELEASE nested'),
      rollbackTo: db.prepare('ROLLBACK TO nested'),
    };
    prepared.set(db, statements);
  }
  return statements;
}

/**
 * Runs `fn` in an IMMEDIATE transaction: the write lock is taken first, so check-then-write is atomic across
 * processes. Inside an open transaction it simply runs `fn`: an error propagates to the enclosing boundary
 * (the outer transaction, or a savepoint a caller opened with `inSavepoint`), which undoes everything
 * since. On a read-only snapshot it runs `fn` as it is. The statements are prepared once per connection: this sits on every request's path.
 */
export function inWriteTransaction<T>(db: Db, fn: () => T): T {
  // A read-only snapshot (a data directory svc may not write) has nothing to lock: reads inside fn work,
  // and the first write fails with SQLITE_READONLY before anything changes.
  if (db.inTransaction || db.readonly) return fn();
  const s = statementsOf(db);
  s.begin.run();
  try {
    const result = fn();
    s.commit.run();
    return result;
  } catch (error) {
    if (db.inTransaction) s.rollback.run();
    throw error;
  }
}

/**
 * Runs `fn` inside a savepoint of the open transaction, so a failure undoes only `fn`'s own writes and the
 * caller may catch it and go on (group commit does, once per request of a batch).
 */
export function inSavepoint<T>(db: Db, fn: () => T): T {
  const s = statementsOf(db);
  s.savepoint.run();
  try {
    const result = fn();
    s.release.run();
    return result;
  } catch (error) {
    s.rollbackTo.run();
    s.release.run();
    throw error;
  }
}
