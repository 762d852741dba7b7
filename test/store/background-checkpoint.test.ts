import { statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkpointInBackground } from '../../src/store/background-checkpoint.js';
import { openDatabase } from '../../src/store/database.js';
import { tempDir } from '../support/run-cli.js';

const waitFor = async (check: () => boolean, ms = 5000) => {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
};

describe('checkpointInBackground', () => {
  it('copies the WAL into the database file from its own thread while the connection never checkpoints', async () => {
    const path = join(tempDir(), 'svc.db');
    const db = openDatabase(path);
    const checkpoints = checkpointInBackground(db, path, 20);
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const before = statSync(path).size;
    db.exec('CREATE TABLE filler (x BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    // About 4 MB over many commits: with automatic checkpoints off, only the thread can move it into svc.db.
    for (let i = 0; i < 1000; i += 1) insert.run();
    expect(await waitFor(() => statSync(path).size > before + 3_000_000)).toBe(true);
    await checkpoints.stop();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(db.prepare('SELECT COUNT(*) AS n FROM filler').get()).toEqual({ n: 1000 });
    db.close();
  });

  it('after a quiet spell, when it looks less often, it still copies new writes within its longest wait', async () => {
    const path = join(tempDir(), 'svc.db');
    const db = openDatabase(path);
    const checkpoints = checkpointInBackground(db, path, 20, 320);
    db.exec('CREATE TABLE filler (x BLOB)');
    // 20, 40, 80, 160, 320: by now the thread waits its longest between looks.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const before = statSync(path).size;
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    for (let i = 0; i < 1000; i += 1) insert.run();
    const started = Date.now();
    expect(await waitFor(() => statSync(path).size > before + 3_000_000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    await checkpoints.stop();
    db.close();
  });

  it('without the thread (the control), nothing reaches the database file', async () => {
    const path = join(tempDir(), 'svc.db');
    const db = openDatabase(path);
    db.pragma('wal_autocheckpoint = 0');
    const before = statSync(path).size;
    db.exec('CREATE TABLE filler (x BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(4000))');
    for (let i = 0; i < 1000; i += 1) insert.run();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(statSync(path).size).toBe(before);
    db.close();
  });
});
