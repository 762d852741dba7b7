/** Migration 7 on a database that has open listen sessions: they close cleanly, nothing else is touched. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openDatabase, schemaVersion } from '../../src/store/database.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { tempDir } from '../support/run-cli.js';

const count = (db: Database.Database, sql: string): number => (db.prepare(sql).get() as { n: number }).n;

describe('migration 7 (partner listen sessions)', () => {
  it('closes the open sessions with their listener rows, keeps every other subscription and delivery', () => {
    const path = join(tempDir('svc-migrate-'), 'svc.db');
    const old = new Database(path);
    old.pragma('foreign_keys = ON');
    for (const migration of MIGRATIONS.filter((m) => m.version <= 6)) old.exec(migration.sql);
    old.pragma('user_version = 6');
    old.exec(`
      INSERT INTO workspaces (id, name, quota_total, quota_period_start, created_at) VALUES (1, 'W', 10, 0, 0);
      INSERT INTO listen_sessions (id, workspace_id, events, secret, last_seen_at, created_at) VALUES ('ls_1', 1, '["message:new"]', 's', 0, 0);
      INSERT INTO webhook_subscriptions (id, workspace_id, event_type, url, secret, listen_session_id, created_at, updated_at)
        VALUES (-1, 1, 'message:new', 'listen://ls_1', 's', 'ls_1', 0, 0), (1, 1, 'message:new', 'https://example.com', 's', NULL, 0, 0);
      INSERT INTO webhook_deliveries (id, subscription_id, webhook_msg_id, event_type, payload, next_attempt_at, created_at)
        VALUES (1, -1, 'msg_a', 'message:new', '{}', 0, 0), (2, 1, 'msg_b', 'message:new', '{}', 0, 0);
    `);
    old.close();

    const db = openDatabase(path);
    expect(schemaVersion(db)).toBe(MIGRATIONS.at(-1)?.version);
    const raw = db as unknown as Database.Database;
    expect(count(raw, 'SELECT COUNT(*) AS n FROM listen_sessions')).toBe(0);
    expect(count(raw, 'SELECT COUNT(*) AS n FROM webhook_subscriptions')).toBe(1);
    expect(count(raw, 'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE id = 2')).toBe(1);
    expect(count(raw, 'SELECT COUNT(*) AS n FROM webhook_deliveries WHERE id = 1')).toBe(0);
    expect(raw.pragma('foreign_key_check')).toEqual([]);
    // Exactly one of workspace and partner.
    expect(() => raw.exec(`INSERT INTO listen_sessions (id, events, secret, last_seen_at, created_at) VALUES ('ls_2', '[]', 's', 0, 0)`)).toThrow(/CHECK/);
    db.close();
  });
});
