/**
 * The partner slice (partners, seats, QR links, files and the storage quota) on PostgreSQL: the same engine
 * over PgDatabase, with replicas (one engine per pool) racing for seats and storage, where only the
 * serializable transaction keeps each check-then-write exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { isSvcError } from '../../src/wire/errors.js';
import type { EngineContext } from '../../src/engine/context.js';
import type { Engine } from '../../src/engine/engine-api.js';
import { codeFromQrLink, pairingPayload } from '../../src/partner/pairing.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { PgDatabase } from '../../src/store/postgres/pg-database.js';
import { query } from '../../src/store/sql.js';
import { recordingSink } from '../support/engine-fixtures.js';
import type { TestDatabase } from '../support/postgres.js';
import { createMigratedTestDatabase } from '../support/store-engine.js';
import { fixedRandom } from '../support/test-engine.js';
import { partnerEventTypes } from '../support/partner-fixtures.js';

let database: TestDatabase;
const engines: Array<Engine & { context: EngineContext }> = [];
const clock = new FakeClock();
const sink = recordingSink();

/** One replica: its own pool on the shared test database. */
function replica() {
  const engine = createEngine({ database: new PgDatabase({ url: database.url, poolSize: 4 }), clock, random: fixedRandom(), events: sink.parts });
  engines.push(engine);
  return engine;
}

const COUNT = query<{ n: number }>('SELECT COUNT(*) AS n FROM users WHERE workspace_id = @workspaceId');
const SEATS_FULL = query<{ n: number }>("SELECT COUNT(*) AS n FROM partner_alerts WHERE workspace_id = @workspaceId AND event = 'workspace:seats_full'");
const FILES = query<{ n: number }>('SELECT COUNT(*) AS n FROM files WHERE workspace_id = @workspaceId AND deleted_at IS NULL');

beforeAll(async () => {
  database = await createMigratedTestDatabase('partner');
});
afterAll(async () => {
  for (const engine of engines) await engine.close();
  await database?.drop();
});

describe('partner slice on PostgreSQL', () => {
  it('createUsers: batches racing from three replicas fill the seats exactly, seats_full once', async () => {
    const [a, b, c] = [replica(), replica(), replica()];
    const partner = await a.admin.createPartner({ name: 'Acme' });
    expect(await a.partners.verifySecret(partner.partner_id, partner.partner_secret)).toBe(true);
    expect(await b.partners.secretOf(partner.partner_id)).toBe(partner.partner_secret);
    const { workspace_id: ws } = await a.partner(partner.partner_id).createWorkspace({ display_name: 'Race', seats_purchased: 10 });
    sink.clear();
    const attempts = [a, b, c].flatMap((engine) => Array.from({ length: 4 }, () => engine.partner(partner.partner_id).createUsers(ws, { count: 2 })));
    const results = await Promise.allSettled(attempts);
    const created = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    for (const r of refused) expect(isSvcError(r.reason) && r.reason.code).toBe('seats_full');
    expect(created).toHaveLength(5);
    expect((await a.context.sql.get(COUNT, { workspaceId: ws }))?.n).toBe(10);
    expect(await c.partner(partner.partner_id).getWorkspace(ws)).toMatchObject({ seats_purchased: 10, seats_used: 10 });
    // The sink also hears attempts that were rolled back and retried; the alert table holds what committed.
    expect(partnerEventTypes(sink)).toContain('workspace:seats_full');
    expect((await a.context.sql.get(SEATS_FULL, { workspaceId: ws }))?.n).toBe(1);
    await expect(b.partner(partner.partner_id).updateWorkspace(ws, { seats_purchased: 9 })).rejects.toMatchObject({ code: 'conflict' });
    const users = await b.partner(partner.partner_id).listUsers(ws);
    expect(users.items.map((u) => u.name).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `User ${i + 1}`).sort());
  });

  it('QR links: a new link revokes the last one; the rotating payload scans; the user shows the phone', async () => {
    const engine = replica();
    const partner = await engine.admin.createPartner({ name: 'QR' });
    const api = engine.partner(partner.partner_id, { linkBase: 'https://svc.example' });
    const { workspace_id: ws } = await api.createWorkspace({ display_name: 'QR', seats_purchased: 1 });
    const [user] = await api.createUsers(ws, { count: 1 });
    const first = await api.createQrLink(ws, user!.user_id, {});
    const second = await api.createQrLink(ws, user!.user_id, { expires_in_hours: 2 });
    expect((await engine.connect.snapshot(codeFromQrLink(first.qr_link)!))?.link.revoked_at).toBe(clock.now());
    await expect(engine.connect.scan({ qr_link: first.qr_link, phone: '+15550007001' })).rejects.toThrow(/revoked/);
    const code = codeFromQrLink(second.qr_link)!;
    expect(await engine.connect.scan({ payload: pairingPayload(code, clock.now()), phone: '+15550007001' })).toMatchObject({ status: 'connected', user_id: user!.user_id });
    expect(await engine.connect.snapshot(code)).toMatchObject({ phone: '+15550007001' });
    await expect(engine.connect.scan({ qr_link: second.qr_link, phone: '+15550007001' })).rejects.toThrow(/connected/);
    expect((await api.listUsers(ws)).items[0]).toMatchObject({ messenger_account: { phone: '+15550007001', status: 'connected' } });
    expect(await api.disconnectAccount(ws, user!.user_id)).toMatchObject({ disconnected: true, phone: '+15550007001' });
    const token = await api.getApiToken(ws);
    expect((await api.rotateApiToken(ws)).token).not.toBe(token.token);
    expect(await engine.authenticate(token.token)).toBeNull();
  });

  it('files: concurrent uploads from two replicas never pass the storage quota; download, delete, templates', async () => {
    const [a, b] = [replica(), replica()];
    const { workspace_id: ws } = await a.admin.createWorkspace({ name: 'Files' });
    await a.admin.updateWorkspace(ws, { storage_mb: 1 });
    const file = (name: string) => ({ filename: name, mimetype: 'application/octet-stream', content: Buffer.alloc(300 * 1024, 7) });
    const results = await Promise.allSettled([a, b, a, b, a, b].map((engine, i) => engine.workspace(ws).uploadFile(file(`f${i}.bin`))));
    const stored = results.filter((r) => r.status === 'fulfilled');
    expect(stored).toHaveLength(3);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toMatchObject({ code: 'storage_quota_exceeded' });
    expect((await a.workspace(ws).getWorkspace()).storage.used_bytes).toBe(3 * 300 * 1024);
    expect((await a.context.sql.get(FILES, { workspaceId: ws }))?.n).toBe(3);

    const uid = (stored[0] as PromiseFulfilledResult<{ uid: string }>).value.uid;
    const got = await b.workspace(ws).getFile(uid);
    const url = new URL(got.temporary_download_url!);
    const downloaded = await a.download(uid, Number(url.searchParams.get('expires')), url.searchParams.get('signature')!);
    expect(downloaded.content.equals(file('x').content)).toBe(true);
    const template = await a.workspace(ws).createTemplate({ name: 'Menu', file_uid: uid });
    expect((await b.workspace(ws).listTemplates(1)).items).toEqual([template]);
    expect(await b.workspace(ws).deleteFile(uid)).toEqual({ deleted: true, uid });
    await expect(a.download(uid, Number(url.searchParams.get('expires')), url.searchParams.get('signature')!)).rejects.toMatchObject({ code: 'not_found' });
    expect((await a.workspace(ws).listFiles(1)).items).toHaveLength(2);
    expect((await a.workspace(ws).getWorkspace()).storage.used_bytes).toBe(2 * 300 * 1024);
  });
});
