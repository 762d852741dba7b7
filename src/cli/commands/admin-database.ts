import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { usageError } from '../errors.js';

/**
 * `svc admin migrate` and `svc admin copy`: the schema of a PostgreSQL database, and moving a data directory
 * onto one. The PostgreSQL driver is loaded only here and when an engine opens a `postgres://` URL.
 */
export function registerAdminDatabase(admin: Command, ctx: CliContext): void {
  admin
    .command('migrate')
    .description('bring the database schema up to this version of svc (--database URL, or the --data directory)')
    .action(async () => {
      refuseRemote(ctx);
      const config = ctx.config();
      if (config.databaseUrl !== undefined) {
        const { migratePostgresUrl } = await import('../../store/postgres/open-postgres.js');
        const result = await migratePostgresUrl(config.databaseUrl);
        ctx.output.result(
          { store: 'postgres', version: result.version, applied: result.applied },
          { kind: 'record', rows: [['store', 'postgres'], ['version', result.version], ['applied', describeApplied(result.applied)]] },
        );
        return;
      }
      const path = await existingInstance(config.dataDir);
      const { migrate, openDatabase, schemaVersion } = await import('../../store/database.js');
      const db = openDatabase(path, { migrate: false });
      try {
        const applied = migrate(db);
        const version = schemaVersion(db);
        ctx.output.result(
          { store: 'sqlite', version, applied, data_dir: config.dataDir },
          { kind: 'record', rows: [['store', 'sqlite'], ['version', version], ['applied', describeApplied(applied)], ['data_dir', config.dataDir]] },
        );
      } finally {
        db.close();
      }
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
      const { openDatabase } = await import('../../store/database.js');
      const { openPostgres } = await import('../../store/postgres/open-postgres.js');
      const { copySqliteToPostgres } = await import('../../store/postgres/copy-from-sqlite.js');
      const source = openDatabase(path);
      try {
        const target = await openPostgres(config.databaseUrl);
        try {
          ctx.output.note(`copying ${path} ...`);
          const tables = await copySqliteToPostgres(source, target.pool);
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
        } finally {
          await target.close();
        }
      } finally {
        source.close();
      }
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
