/**
 * For tests of the statements svc makes: src/store/sql.js with `query` and `postgresOnly` recording every statement
 * they make (module constants, made as their modules load) in `made`. Use from a hoisted mock:
 *
 *   const made = vi.hoisted((): Statement[] => []);
 *   vi.mock('../../src/store/sql.js', async (importOriginal) =>
 *     (await import('../support/statement-capture.js')).capturingSql(await importOriginal(), made));
 */
import type * as Sql from '../../src/store/sql.js';

export function capturingSql(actual: typeof Sql, made: Sql.Statement[]): typeof Sql {
  const capture = <F extends (...args: never[]) => Sql.Statement>(make: F): F =>
    ((...args: Parameters<F>) => {
      const statement = make(...args);
      made.push(statement);
      return statement;
    }) as F;
  return { ...actual, query: capture(actual.query), postgresOnly: capture(actual.postgresOnly) };
}
