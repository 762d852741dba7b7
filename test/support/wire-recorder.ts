import type { PgDatabase } from '../../src/store/postgres/pg-database.js';

/**
 * The transactions run on `db`'s connections (those it opens from now on), each as its round trips, each of those
 * as the heads (first three words) of its statements: a statement sent while none of its connection's awaits an
 * answer starts a round trip; one sent meanwhile (pipelined) rides along. `statements` gets the head of every
 * statement, in or out of a transaction.
 */
export function recordTransactions(db: PgDatabase, statements: string[] = []): Array<string[][]> {
  const transactions: Array<string[][]> = [];
  db.pool.on('connect', (client) => {
    let awaiting = 0;
    let current: string[][] | undefined;
    const original = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    (client as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (config, ...rest) => {
      const text = typeof config === 'string' ? config : (config as { text: string }).text;
      const head = text.trim().split(/\s+/).slice(0, 3).join(' ');
      if (head.startsWith('BEGIN')) transactions.push((current = []));
      if (current !== undefined) {
        if (awaiting === 0) current.push([]);
        current.at(-1)!.push(head);
      }
      if (head === 'COMMIT' || head === 'ROLLBACK') current = undefined;
      statements.push(head);
      awaiting += 1;
      return original(config, ...rest).finally(() => (awaiting -= 1));
    };
  });
  return transactions;
}
