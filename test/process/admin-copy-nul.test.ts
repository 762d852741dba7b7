/**
 * `svc admin copy` of a data directory holding NUL characters that an older release accepted on SQLite:
 * the move completes, each NUL becomes U+FFFD, and the operator is told how many rows changed.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { ProcessSandbox } from '../support/svc-process.js';

let box: ProcessSandbox;
let database: TestDatabase;
beforeEach(async () => {
  box = new ProcessSandbox();
  database = await createTestDatabase('copy_nul');
});
afterEach(async () => {
  await box.cleanup();
  await database.drop();
});

async function pgRows<T>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

describe('svc admin copy with NUL characters in SQLite text', () => {
  it('copies every row, puts U+FFFD for each NUL and reports the rows changed per table', async () => {
    const dir = box.tempDir();
    await box.ok(['send', '--phone', '+14155550100', '--text', 'first', '--data', dir]);
    await box.ok(['send', '--phone', '+14155550101', '--text', 'second', '--data', dir]);
    // What an older release let through: NUL in a message text (twice in one row) and in a chat name.
    const db = new Database(join(dir, 'svc.db'));
    db.prepare("UPDATE messages SET text = 'a' || char(0) || 'b' || char(0) WHERE text = 'first'").run();
    db.prepare("UPDATE chats SET name = 'Shop' || char(0) WHERE contact_phone = '+14155550101'").run();
    db.close();

    await box.ok(['admin', 'migrate', '--database', database.url]);
    const run = await box.ok(['admin', 'copy', '--data', dir, '--database', database.url, '--json']);
    const report = JSON.parse(run.stdout) as { rows: number; nul_rows_replaced: number; tables: Array<{ table: string; rows: number; nulRowsReplaced: number }> };
    expect(report.nul_rows_replaced).toBe(2);
    expect(report.tables.find((t) => t.table === 'messages')).toMatchObject({ rows: 2, nulRowsReplaced: 1 });
    expect(report.tables.find((t) => t.table === 'chats')).toMatchObject({ rows: 2, nulRowsReplaced: 1 });

    // Without --json the operator reads it in a note, beside the table.
    const second = await createTestDatabase('copy_nul_text');
    try {
      await box.ok(['admin', 'migrate', '--database', second.url]);
      const human = await box.ok(['admin', 'copy', '--data', dir, '--database', second.url]);
      expect(human.stderr).toContain('replaced NUL characters (U+0000), which PostgreSQL cannot store, with U+FFFD in 2 rows (chats 1, messages 1)');
      expect(human.stdout).toMatch(/^messages\t2\t1$/m);
    } finally {
      await second.drop();
    }

    const texts = await pgRows<{ text: string }>('SELECT text FROM messages ORDER BY id');
    expect(texts.map((r) => r.text)).toEqual(['a\uFFFDb\uFFFD', 'second']);
    const names = await pgRows<{ name: string }>('SELECT name FROM chats ORDER BY id');
    expect(names.map((r) => r.name)).toEqual(['+14155550100', 'Shop\uFFFD']);
    // The copied instance serves: a command on PostgreSQL reads the cleaned chat.
    const chats = JSON.parse((await box.ok(['chats', 'list', '--database', database.url, '--json'])).stdout) as { items: Array<{ name: string }> };
    expect(chats.items.map((c) => c.name)).toContain('Shop\uFFFD');
  });
});
