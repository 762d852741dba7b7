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
 * Runs `fn` in an IMMEDIATE transaction (the write lock is taken first, so check-then-write is atomic across
 * processes), or in a savepoint when a transaction is already open, so a failing step undoes only its own
 * writes. The statements are prepared once per connection: this sits on every request's path.
 */
export function inWriteTransaction<T>(db: Db, fn: () => T): T {
  const s = statementsOf(db);
  const nested = db.inTransaction;
  (nested ? s.savepoint : s.begin).run();
  try {
    const result = fn();
    (nested ? s.release : s.commit).run();
    return result;
  } catch (error) {
    if (nested) {
      s.rollbackTo.run();
      s.release.run();
    } else if (db.inTransaction) {
      s.rollback.run();
    }
    throw error;
  }
}
