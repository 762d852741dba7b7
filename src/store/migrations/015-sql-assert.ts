import type { MigrationSource } from './migration.js';

/**
 * Version 15: `svc_assert(ok, message)`, which fails the statement (and so its transaction) unless `ok` holds.
 * A write sent without waiting for its answer (`SqlExecutor.sendBeforeCommit`) has its COMMIT right behind it,
 * so a rule checked on the answer would come too late: the group commit's send flush checks that every
 * workspace was debited inside the statement instead. A function, not an expression, so the planner never
 * evaluates it ahead. Nothing on SQLite, where that check runs in the process between statements.
 */
export const SQL_ASSERT: MigrationSource = {
  version: 15,
  name: 'sql-assert',
  sql: {
    sqlite: `
-- Nothing on SQLite: its statements answer before the next one is sent.
`,
    postgres: `
CREATE FUNCTION svc_assert(p_ok BOOLEAN, p_message TEXT) RETURNS BOOLEAN
LANGUAGE plpgsql AS $fn$
BEGIN
  IF p_ok IS NOT TRUE THEN
    RAISE EXCEPTION '%', p_message;
  END IF;
  RETURN TRUE;
END
$fn$;
`,
  },
};
