import { query, type SqlExecutor } from './sql.js';

const ALL = query<{ name: string; value: string }>('SELECT name, value FROM instance_settings ORDER BY name');
const SET = query(
  `INSERT INTO instance_settings (name, value, updated_at) VALUES (@name, @value, @now)
   ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
);
const UNSET = query('DELETE FROM instance_settings WHERE name = @name');

/** Settings of the instance as name -> text; what they mean is decided above the store (src/engine/instance-settings.ts). */
export function createInstanceSettingsStore(sql: SqlExecutor) {
  return {
    all: async (): Promise<Map<string, string>> => new Map((await sql.all(ALL)).map((row) => [row.name, row.value])),
    set: async (name: string, value: string, now: number): Promise<void> => void (await sql.run(SET, { name, value, now })),
    unset: async (name: string): Promise<void> => void (await sql.run(UNSET, { name })),
  };
}
