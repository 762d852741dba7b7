/**
 * `svc admin migrate` and schema versions, as an operator meets them through the real `svc` binary: a migrate
 * never creates an instance, and a database written by a newer svc is refused by every command (migrate, a
 * one-shot command, serve) on both stores, and left as it was.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, PG_MIGRATIONS } from '../../src/store/migrations/index.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { ProcessSandbox } from '../support/svc-process.js';

const LATEST_SQLITE = MIGRATIONS.at(-1)!.version;
const LATEST_PG = PG_MIGRATIONS.at(-1)!.version;

let box: ProcessSandbox;
beforeEach(() => {
  box = new ProcessSandbox();
});
afterEach(async () => {
  await box.cleanup();
});

const SERVE = ['serve', '--port', '0', '--host', '127.0.0.1'];

describe('svc admin migrate --data finds an instance or says there is none', () => {
  it('a directory that does not exist, or holds no svc.db, exits 2 and creates nothing', async () => {
    const parent = box.tempDir();
    const typo = join(parent, 'typo-dir');
    const empty = join(parent, 'empty');
    mkdirSync(empty);
    for (const dir of [typo, empty]) {
      const run = await box.run(['admin', 'migrate', '--data', dir]);
      expect(run.code, run.stdout).toBe(2);
      expect(run.stderr).toContain(`no svc instance in ${dir}`);
      expect(run.stderr).toMatch(/hint: .*--data/);
    }
    expect(existsSync(typo)).toBe(false);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('an existing instance is brought up to date and reported', async () => {
    const dir = box.tempDir();
    await box.ok(['chats', 'list', '--data', dir]);
    const run = await box.ok(['admin', 'migrate', '--data', dir, '--json']);
    expect(JSON.parse(run.stdout)).toMatchObject({ store: 'sqlite', version: LATEST_SQLITE, applied: [] });
  });
});

describe('a database written by a newer svc is refused, never migrated or served', () => {
  const newer = (known: number) => new RegExp(`written by a newer svc \\(schema ${known + 1}, this release knows ${known}\\): upgrade svc`);

  it('SQLite: admin migrate, a command and serve exit 1 and leave svc.db as it was', async () => {
    const dir = box.tempDir();
    await box.ok(['send', '--phone', '+14155550100', '--text', 'seed', '--data', dir]);
    const path = join(dir, 'svc.db');
    const db = new Database(path);
    db.pragma(`user_version = ${LATEST_SQLITE + 1}`);
    db.close();
    const before = readFileSync(path);
    for (const args of [['admin', 'migrate'], ['chats', 'list'], SERVE]) {
      const run = await box.run([...args, '--data', dir]);
      expect(run.code, `${args.join(' ')}: ${run.stdout}`).toBe(1);
      expect(run.stdout).not.toContain('listening on');
      expect(run.stderr).toMatch(newer(LATEST_SQLITE));
    }
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  describe('PostgreSQL', () => {
    let database: TestDatabase;
    beforeAll(async () => {
      database = await createTestDatabase('newer');
    });
    afterAll(async () => {
      await database.drop();
    });

    it('admin migrate, a command and serve exit 1 and leave svc_schema as it was', async () => {
      await box.ok(['admin', 'migrate', '--database', database.url]);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        await client.query("INSERT INTO svc_schema (version, name, applied_at) VALUES ($1, 'from-the-future', 0)", [LATEST_PG + 1]);
        for (const args of [['admin', 'migrate'], ['chats', 'list'], [...SERVE, '--data', box.tempDir()]]) {
          const run = await box.run([...args, '--database', database.url]);
          expect(run.code, `${args.join(' ')}: ${run.stdout}`).toBe(1);
          expect(run.stdout).not.toContain('listening on');
          expect(run.stderr).toMatch(newer(LATEST_PG));
        }
        const versions = await client.query<{ version: number }>('SELECT version FROM svc_schema ORDER BY version');
        expect(versions.rows.map((row) => row.version)).toEqual([...PG_MIGRATIONS.map((m) => m.version), LATEST_PG + 1]);
      } finally {
        await client.end();
      }
    });
  });
});
