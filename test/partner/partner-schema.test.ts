import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { generatePartnerCredentials } from '../../src/partner/partner-credentials.js';
import { generateLinkCode, pairingLookupKey } from '../../src/partner/pairing.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';

const sqliteText = (version: number): string => MIGRATIONS.find((m) => m.version === version)!.sql;

let db: Database.Database;
const T = 1_700_000_000_000;

beforeEach(() => {
  db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  db.exec(sqliteText(1));
  db.exec(sqliteText(3));
  const { partner_id, partner_secret } = generatePartnerCredentials();
  db.prepare('INSERT INTO partners (id, public_id, name, secret, created_at) VALUES (1, ?, ?, ?, ?)').run(
    partner_id,
    'Acme',
    partner_secret,
    T,
  );
  db.prepare(
    `INSERT INTO workspaces (id, name, partner_id, seats_purchased, quota_total, quota_period_start, created_at)
     VALUES (1, 'Acme Dental', 1, 5, 1000, ?, ?)`,
  ).run(T, T);
  db.prepare("INSERT INTO users (id, workspace_id, name, email, created_at) VALUES (10, 1, 'u', 'u@x', ?)").run(T);
});
afterEach(() => db.close());

const insertLink = (code = generateLinkCode()) =>
  db
    .prepare(
      `INSERT INTO qr_links (code, pairing_key, workspace_id, user_id, expires_at, created_at)
       VALUES (@code, @key, 1, 10, @expires, @now)`,
    )
    .run({ code, key: pairingLookupKey(code), expires: T + 1000, now: T });

describe('003-partner schema', () => {
  it('003-partner: applies in order after 001-core and 002-webhooks', () => {
    const full = new Database(':memory:');
    full.pragma('foreign_keys = ON');
    for (const version of [1, 2, 3]) full.exec(sqliteText(version));
    const tables = full.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    expect(tables).toEqual(expect.arrayContaining(['partners', 'qr_links', 'partner_alerts', 'webhook_subscriptions']));
    full.close();
  });

  it('003-partner: applies over the core schema and refuses a duplicate Partner ID', () => {
    const duplicate = () =>
      db
        .prepare("INSERT INTO partners (public_id, name, secret, created_at) SELECT public_id, 'B', 's', 0 FROM partners")
        .run();
    expect(duplicate).toThrow(/UNIQUE constraint failed: partners.public_id/);
  });

  it('003-partner: a user has one live QR link; revoking the previous one makes room', () => {
    insertLink();
    expect(() => insertLink()).toThrow(/UNIQUE constraint failed/);
    const replace = db.transaction(() => {
      db.prepare('UPDATE qr_links SET revoked_at = ? WHERE user_id = 10 AND revoked_at IS NULL').run(T + 1);
      insertLink();
    });
    replace();
    const rows = db.prepare('SELECT revoked_at FROM qr_links ORDER BY id').all() as { revoked_at: number | null }[];
    expect(rows.map((row) => row.revoked_at)).toEqual([T + 1, null]);
  });

  it('003-partner: a QR link must belong to an existing user and workspace', () => {
    const orphan = () =>
      db
        .prepare(
          `INSERT INTO qr_links (code, pairing_key, workspace_id, user_id, expires_at, created_at)
           VALUES ('c', 'k', 1, 999, ?, ?)`,
        )
        .run(T + 1, T);
    expect(orphan).toThrow(/FOREIGN KEY constraint failed/);
  });

  it('003-partner: each alert crossing is recorded once', () => {
    const record = db.prepare(
      "INSERT OR IGNORE INTO partner_alerts (workspace_id, event, period_key, created_at) VALUES (1, 'workspace:quota_full', ?, ?)",
    );
    expect(record.run(T, T).changes).toBe(1);
    expect(record.run(T, T + 5).changes).toBe(0);
    expect(record.run(T + 1, T + 5).changes).toBe(1);
  });
});
