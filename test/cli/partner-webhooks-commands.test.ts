import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/runtime/create-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { partnerSetup } from '../support/partner-setup.js';
import { runSvc } from '../support/run-cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const HOOK = 'http://127.0.0.1:9/partner-hook';

describe('svc partner webhooks on the local engine', () => {
  it('create | list | get --show-secret | update | test | deliveries | redeliver | delete', async () => {
    const { svc } = await partnerSetup();
    const created = await svc(['partner', 'webhooks', 'create', '--event', 'messenger_account:connected', '--url', HOOK, '--json']);
    expect(created.code).toBe(0);
    const hook = created.json<{ id: number; secret: string; event_type: string }>();
    expect(hook).toMatchObject({ event_type: 'messenger_account:connected', url: HOOK, enabled: true });
    expect(hook.secret).toMatch(/^whsec_/);
    const id = String(hook.id);

    const listed = await svc(['partner', 'webhooks', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('messenger_account:connected');
    expect(listed.stdout).not.toContain(hook.secret);
    const plain = await svc(['partner', 'webhooks', 'get', id]);
    expect(plain.stdout).toContain(HOOK);
    expect(plain.stdout).not.toContain(hook.secret);
    expect((await svc(['partner', 'webhooks', 'get', id, '--show-secret', '--json'])).json()).toMatchObject({ id: hook.id, secret: hook.secret });

    const updated = await svc(['partner', 'webhooks', 'update', id, '--event', 'workspace:seats_full', '--disable', '--json']);
    expect(updated.json()).toMatchObject({ event_type: 'workspace:seats_full', enabled: false });
    expect((await svc(['partner', 'webhooks', 'update', id, '--enable', '--json'])).json()).toMatchObject({ enabled: true });
    const nothing = await svc(['partner', 'webhooks', 'update', id]);
    expect(nothing.code).toBe(2);

    const shown = await svc(['partner', 'webhooks', 'test', id]);
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain(`svc partner webhooks deliveries ${id}`);
    const delivery = (await svc(['partner', 'webhooks', 'test', id, '--json'])).json<{ id: number; webhook_id: string }>();
    const deliveries = (await svc(['partner', 'webhooks', 'deliveries', id, '--json'])).json<{ items: Array<{ id: number }> }>();
    expect(deliveries.items.map((d) => d.id)).toContain(delivery.id);
    const again = await svc(['partner', 'webhooks', 'redeliver', id, String(delivery.id), '--json']);
    expect(again.json()).toMatchObject({ webhook_id: delivery.webhook_id });

    const deleted = await svc(['partner', 'webhooks', 'delete', id, '--yes']);
    expect(deleted.stdout).toContain(`Deleted webhook ${id}`);
    const gone = await svc(['partner', 'webhooks', 'get', id, '--json']);
    expect(gone.code).toBe(1);
    expect(JSON.parse(gone.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });

  it('a workspace event is refused; the workspace `svc webhooks` does not see partner subscriptions', async () => {
    const { svc } = await partnerSetup();
    const refused = await svc(['partner', 'webhooks', 'create', '--event', 'message:new', '--url', HOOK, '--json']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: { code: 'usage_error', message: 'unknown event "message:new"' } });
    const { id } = (await svc(['partner', 'webhooks', 'create', '--event', 'api-token:rotated', '--url', HOOK, '--json'])).json<{ id: number }>();
    expect((await svc(['webhooks', 'list', '--json'])).json()).toMatchObject({ items: [] });
    expect((await svc(['webhooks', 'get', String(id), '--json'])).code).toBe(1);
  });
});

describe('svc partner webhooks against a remote server (SVC_PARTNER_BASE_URL)', () => {
  it('creates and lists over the Partner API; another partner sees nothing', async () => {
    const engine = createEngine({ database: new SqliteDatabase(openDatabase(':memory:')) });
    const app = buildServer({ engine, rateLimitPerMinute: 0 });
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(async () => {
      await app.close();
      await engine.close();
    });
    const [acme, other] = [await engine.admin.createPartner({ name: 'Acme' }), await engine.admin.createPartner({ name: 'Other' })];
    const as = (who: typeof acme) => ({
      env: { SVC_PARTNER_BASE_URL: `${origin}/partner`, SVC_PARTNER_ID: who.partner_id, SVC_PARTNER_SECRET: who.partner_secret },
    });
    const created = await runSvc(['partner', 'webhooks', 'create', '--event', 'workspace:quota_full', '--url', 'https://hooks.example.com/q', '--json'], as(acme));
    expect(created.code).toBe(0);
    const { id } = created.json<{ id: number }>();
    expect((await runSvc(['partner', 'webhooks', 'list', '--json'], as(acme))).json()).toMatchObject({ items: [{ id, event_type: 'workspace:quota_full' }] });
    expect((await runSvc(['partner', 'webhooks', 'list', '--json'], as(other))).json()).toMatchObject({ items: [] });
    const probe = await runSvc(['partner', 'webhooks', 'delete', String(id), '--yes', '--json'], as(other));
    expect(probe.code).toBe(1);
    expect(JSON.parse(probe.stderr)).toMatchObject({ error: { code: 'not_found' } });
  });
});
