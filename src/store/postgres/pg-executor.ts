/**
 * Runs svc's statements on node-postgres: each statement is compiled once to positional parameters and
 * sent as a named prepared statement, so every pooled connection parses it once.
 */
import type { PoolClient, QueryResult } from 'pg';
import type { PoolGate } from './pool-gate.js';
import type { DeferredWrites } from '../deferred-writes.js';
import { positionalValues, toPositional, type Params, type PositionalSql, type SqlExecutor, type Statement } from '../sql.js';
import { mapPgError } from './pg-errors.js';

const compiled = new Map<number, PositionalSql>();

function compile(statement: Statement): PositionalSql {
  let positional = compiled.get(statement.id);
  if (positional === undefined) {
    positional = toPositional(statement.text.postgres);
    compiled.set(statement.id, positional);
  }
  return positional;
}

/** The pool's line (autocommit statements) or one checked-out client (a transaction). */
export type Queryable = Pick<PoolClient, 'query'> | PoolGate;

async function execute(target: Queryable, statement: Statement, params: Params | undefined): Promise<QueryResult> {
  const { text, names } = compile(statement);
  try {
    return await (target as PoolGate).query({ name: `svc_${statement.id}`, text, values: positionalValues(names, params) });
  } catch (error) {
    throw mapPgError(error);
  }
}

/** What a write transaction's executor carries: see `SqlExecutor`; `sent` gathers what `sendBeforeCommit` sent. */
export interface PgTransactionState {
  memo: Map<string, unknown>;
  deferred: DeferredWrites;
  sent: Array<Promise<unknown>>;
  /** Every statement of the transaction runs on its generic plan (`WriteOptions.genericPlans`). */
  genericPlans?: boolean;
}

/** The SqlExecutor of a pool, or of one write transaction's client (with the transaction's state). */
export function pgExecutor(target: Queryable, transaction?: PgTransactionState): SqlExecutor {
  const sendBeforeCommit = transaction && (<Row>(statement: Statement<Row>, params?: Params, onRows?: (rows: Row[]) => void): void => {
    const answer = execute(target, statement, params).then((result) => onRows?.(result.rows as Row[]));
    // Awaited by the transaction with its COMMIT; until then a failure must not count as unhandled.
    answer.catch(() => undefined);
    transaction.sent.push(answer);
  });
  return {
    dialect: 'postgres',
    ...(transaction && { memo: transaction.memo, deferred: transaction.deferred, sendBeforeCommit, genericPlans: transaction.genericPlans === true }),
    all: async <Row>(statement: Statement<Row>, params?: Params) => (await execute(target, statement, params)).rows as Row[],
    get: async <Row>(statement: Statement<Row>, params?: Params) =>
      (await execute(target, statement, params)).rows[0] as Row | undefined,
    run: async (statement: Statement, params?: Params) => (await execute(target, statement, params)).rowCount ?? 0,
  };
}
