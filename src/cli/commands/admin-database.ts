import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';

/**
 * `svc admin migrate` and `svc admin copy`: the schema of a PostgreSQL database, and moving a data directory
 * onto one, through runtime's entry points (src/runtime/database-admin.ts).
 */
export function registerAdminDatabase(admin: Command, ctx: CliContext): void {
  admin
    .command('migrate')
    .description('bring the database schema up to this version of svc (--database URL, or the --data directory)')
    .action(async () => {
      refuseRemote(ctx);
      const config = ctx.config();
      const databases = await import('../../runtime/database-admin.js');
      if (config.databaseUrl !== undefined) {
        const result = await databases.migratePostgresDatabase(config.databaseUrl);
        ctx.output.result(
          { store: 'postgres', version: result.version, applied: result.applied },
          { kind: 'record', rows: [['store', 'postgres'], ['version', result.version], ['applied', describeApplied(result.applied)]] },
        );
        return;
      }
      const { version, applied } = await databases.migrateSqliteInstance(await existingInstance(config.dataDir));
      ctx.output.result(
        { store: 'sqlite', version, applied, data_dir: config.dataDir },
        { kind: 'record', rows: [['store', 'sqlite'], ['version', version], ['applied', describeApplied(applied)], ['data_dir', config.dataDir]] },
      );
    });

  admin
    .command('copy')
    .description('copy every row of a data directory (--data DIR) into an empty PostgreSQL database (--database URL)')
    .action(async () => {
      refuseRemote(ctx);
      const config = ctx.config();
      if (config.databaseUrl === undefined) {
        throw usageError('`svc admin copy` needs the target: --database URL', 'e.g. `svc admin copy --data ./data --database postgres://svc@127.0.0.1:5432/svc`');
      }
      const path = await existingInstance(config.dataDir);
      const { copySqliteInstanceToPostgres } = await import('../../runtime/database-admin.js');
      ctx.output.note(`copying ${path} ...`);
      const tables = await copySqliteInstanceToPostgres(path, config.databaseUrl);
      const rows = tables.reduce((sum, table) => sum + table.rows, 0);
      const nulRowsReplaced = tables.reduce((sum, table) => sum + table.nulRowsReplaced, 0);
      ctx.output.result(
        { tables, rows, nul_rows_replaced: nulRowsReplaced },
        {
          kind: 'table',
          head: ['table', 'rows', 'nul_rows_replaced'],
          rows: tables.map((table) => [table.table, table.rows, table.nulRowsReplaced]),
          empty: 'no tables',
        },
      );
      if (nulRowsReplaced > 0) {
        const where = tables.filter((t) => t.nulRowsReplaced > 0).map((t) => `${t.table} ${t.nulRowsReplaced}`).join(', ');
        ctx.output.note(`replaced NUL characters (U+0000), which PostgreSQL cannot store, with U+FFFD in ${nulRowsReplaced} rows (${where})`);
      }
      ctx.output.note(`copied ${rows} rows; start \`svc serve --database URL\` (the data directory is left as it was)`);
    });
}

const describeApplied = (applied: number[]): string => (applied.length === 0 ? 'nothing (already current)' : applied.join(', '));

/**
 * The database of an instance that exists: admin commands work on one and never create one (a mistyped
 * --data would otherwise become a new, empty instance and report success).
 */
export async function existingInstance(dataDir: string): Promise<string> {
  const { databasePath } = await import('../../runtime/open-engine.js');
  const path = databasePath(dataDir);
  if (!existsSync(path)) {
    throw usageError(`no svc instance in ${dataDir} (no svc.db there)`, 'check --data: pass the data directory the instance uses (admin commands create no instance)');
  }
  return path;
}

function refuseRemote(ctx: CliContext): void {
  if (ctx.globals.baseUrl !== undefined) {
    throw usageError('admin commands work on a database, not on a remote instance', 'drop --base-url and pass --data DIR or --database URL');
  }
}
