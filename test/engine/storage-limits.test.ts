import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { FakeClock } from '../../src/wire/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { createMaintenanceRunner, RETENTION_MS } from '../../src/workers/maintenance.js';
import { countRows, expectSvcError, tempDir } from '../support/engine-fixtures.js';
import { fixedRandom, testEngine } from '../support/test-engine.js';

const MiB = 1024 * 1024;
const file = (bytes: number, name = 'f.bin') => ({ filename: name, mimetype: 'application/octet-stream', content: Buffer.alloc(bytes, 7) });

describe('storage quota', () => {
  it('refuses an upload past the quota with storage_quota_exceeded; deleting gives the room back', async () => {
    const t = await testEngine();
    const ws = t.local.workspace_id;
    await t.engine.admin.updateWorkspace(ws, { storage_mb: 2 });
    const first = await t.api.uploadFile(file(1.5 * MiB));
    const refused = await expectSvcError(() => t.api.uploadFile(file(0.75 * MiB)), 'storage_quota_exceeded');
    expect(refused.status).toBe(413);
    expect(refused.message).toMatch(/storage quota of 2 MiB/);
    expect((await t.api.listFiles(1)).items).toHaveLength(1);
    expect((await t.api.getWorkspace()).storage).toEqual({ limit_bytes: 2 * MiB, used_bytes: 1.5 * MiB });
    await t.api.deleteFile(first.uid);
    expect((await t.api.getWorkspace()).storage.used_bytes).toBe(0);
    await t.api.uploadFile(file(2 * MiB));
    await t.engine.admin.updateWorkspace(ws, { storage_mb: null });
    expect((await t.api.getWorkspace()).storage.limit_bytes).toBe(1024 * MiB);
  });

  it('concurrent uploads cannot both take the last free bytes', async () => {
    const t = await testEngine();
    await t.engine.admin.updateWorkspace(t.local.workspace_id, { storage_mb: 1 });
    const results = await Promise.allSettled([t.api.uploadFile(file(0.75 * MiB, 'a.bin')), t.api.uploadFile(file(0.75 * MiB, 'b.bin'))]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'storage_quota_exceeded' } });
    expect((await t.api.getWorkspace()).storage.used_bytes).toBe(0.75 * MiB);
    expect(countRows(t.db, 'files')).toBe(1);
  });

  it('the quota is per workspace: one full workspace does not stop another', async () => {
    const t = await testEngine();
    await t.engine.admin.updateWorkspace(t.local.workspace_id, { storage_mb: 0 });
    await expectSvcError(() => t.api.uploadFile(file(10)), 'storage_quota_exceeded');
    const other = await t.engine.admin.createWorkspace({ name: 'Other' });
    expect((await t.engine.workspace(other.workspace_id).uploadFile(file(10))).size).toBe(10);
  });

  it('over HTTP: a 413 with the error body', async () => {
    const t = await testEngine();
    await t.engine.admin.updateWorkspace(t.local.workspace_id, { storage_mb: 0 });
    const app = buildServer({ engine: t.engine, rateLimitPerMinute: 0 });
    const boundary = 'b0undary';
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
    const response = await app.inject({
      method: 'POST', url: '/api/files_upload', payload,
      headers: { authorization: `Bearer ${t.local.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ status: 'error', error_code: 'storage_quota_exceeded' });
    await app.close();
  });

  it('a full disk is a 507 with an error body, never a 500, and nothing is half-written', async () => {
    const t = await testEngine();
    const app = buildServer({ engine: t.engine, rateLimitPerMinute: 0 });
    const pages = t.db.pragma('page_count', { simple: true }) as number;
    t.db.pragma(`max_page_count = ${pages + 2}`); // what SQLite answers when the disk has no room left
    const boundary = 'b0undary';
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`),
      Buffer.alloc(2 * MiB, 1),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const send = await app.inject({
      method: 'POST', url: '/api/files_upload', payload,
      headers: { authorization: `Bearer ${t.local.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(send.statusCode).toBe(507);
    expect(send.json()).toMatchObject({ status: 'error', error_code: 'insufficient_storage' });
    expect(send.headers['retry-after']).toBeDefined();
    expect(countRows(t.db, 'files')).toBe(0);
    expect((await t.api.getWorkspace()).storage.used_bytes).toBe(0);
    await app.close();
  });
});

describe('maintenance sweep', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => close?.());

  it('gives a deleted file\'s pages back to the file system on its next run', async () => {
    const dir = tempDir();
    const path = join(dir, 'svc.db');
    const clock = new FakeClock();
    const engine = createEngine({ database: new SqliteDatabase(openDatabase(path)), clock, random: fixedRandom() });
    close = () => engine.close();
    const api = engine.workspace((await engine.ensureLocalWorkspace()).workspace_id);
    const uploaded = [await api.uploadFile(file(8 * MiB, 'a.bin')), await api.uploadFile(file(8 * MiB, 'b.bin'))];
    const maintenance = createMaintenanceRunner(engine.context);
    await maintenance.runDue();
    const full = statSync(path).size;
    expect(full).toBeGreaterThan(16 * MiB);
    for (const f of uploaded) await api.deleteFile(f.uid);
    clock.advance(20_000);
    await maintenance.runDue();
    expect(statSync(path).size).toBeLessThan(full - 15 * MiB);
  });

  it('deletes finished deliveries and their attempts after the retention time, and nothing younger', async () => {
    const t = await testEngine();
    const ws = t.local.workspace_id;
    await t.engine.webhooks(ws).create({ url: 'https://hooks.example.com/x', event_type: 'message:new' });
    const insertFinished = (completedAt: number) => {
      const { id } = t.db.prepare('SELECT id FROM webhook_subscriptions LIMIT 1').get() as { id: number };
      const delivery = t.db.prepare(`INSERT INTO webhook_deliveries (subscription_id, webhook_msg_id, event_type, payload, status, attempts, created_at, completed_at)
        VALUES (?, 'msg', 'message:new', '{}', 'succeeded', 1, ?, ?)`).run(id, completedAt, completedAt);
      t.db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt_number, ok, status_code, duration_ms, created_at) VALUES (?, 1, 1, 200, 5, ?)`)
        .run(delivery.lastInsertRowid, completedAt);
    };
    const now = t.clock.now();
    insertFinished(now - RETENTION_MS - 1000);
    insertFinished(now - RETENTION_MS + 60_000);
    await createMaintenanceRunner(t.engine.context).runDue();
    expect(countRows(t.db, 'webhook_deliveries')).toBe(1);
    expect(countRows(t.db, 'webhook_attempts')).toBe(1);
  });
});
