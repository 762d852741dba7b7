import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import type { CreatedWebhookDto, WebhookDto } from '../../src/wire/webhook-types.js';
import { runSvc, tempDir } from '../support/run-cli.js';

/** `svc ...` in process against a real local engine in a fresh data directory. */
function localSvc() {
  const env = { SVC_HOME: tempDir('svc-hooks-home-') };
  return (args: string[]) => runSvc(args, { env, io: { createClient } });
}

describe('svc webhooks', () => {
  it('trigger: fires a sample event to the subscriptions of its type and says when nobody takes it', async () => {
    const svc = localSvc();
    const nobody = await svc(['trigger', 'chat:created']);
    expect(nobody.code).toBe(0);
    expect(nobody.stdout).toBe('triggered chat:created: no delivery queued\n');
    expect(nobody.stderr).toContain('svc webhooks create --event chat:created --url URL');
    await svc(['webhooks', 'create', '--event', 'chat:created', '--url', 'http://127.0.0.1:3000/hooks']);
    const fired = await svc(['trigger', 'chat:created', '--json']);
    expect(fired.json()).toMatchObject({ event_type: 'chat:created', deliveries: 1 });
    const log = (await svc(['webhooks', 'deliveries', '1', '--json'])).json<{ items: Array<{ webhook_id: string }> }>();
    expect(log.items[0]!.webhook_id).toBe(fired.json<{ webhook_id: string }>().webhook_id);
    expect((await svc(['trigger', 'chat:craeted'])).stderr).toContain('did you mean "chat:created"?');
  });

  it('create: prints the secret once with how to see it again; get hides it unless --show-secret', async () => {
    const svc = localSvc();
    const created = await svc(['webhooks', 'create', '--event', 'message:new', '--url', 'http://127.0.0.1:3000/hooks']);
    expect(created.code, created.stderr).toBe(0);
    const secret = /Signing secret: (whsec_\S+)/.exec(created.stdout)?.[1];
    expect(secret).toBeDefined();
    expect(created.stdout).toContain('svc webhooks get 1 --show-secret');
    const got = await svc(['webhooks', 'get', '1']);
    expect(got.stdout).toContain('http://127.0.0.1:3000/hooks');
    expect(got.stdout).not.toContain('whsec_');
    expect((await svc(['webhooks', 'get', '1', '--show-secret'])).stdout).toContain(secret!);
    expect((await svc(['webhooks', 'list'])).stdout).not.toContain('whsec_');
  });

  it('--json: create, list, update (partial), deliveries, test, delete', async () => {
    const svc = localSvc();
    const created = (await svc(['webhooks', 'create', '--event', 'chat:created', '--url', 'http://127.0.0.1:9/a', '--disabled', '--json'])).json<CreatedWebhookDto>();
    expect(created).toMatchObject({ event_type: 'chat:created', enabled: false, errors_counter: 0 });
    const { secret: _secret, ...record } = created;
    expect((await svc(['webhooks', 'list', '--json'])).json()).toEqual({ items: [record], page: 1, has_more_pages: false });
    const updated = (await svc(['webhooks', 'update', String(created.id), '--enable', '--json'])).json<WebhookDto>();
    expect(updated).toMatchObject({ enabled: true, url: 'http://127.0.0.1:9/a', event_type: 'chat:created' });
    const test = await svc(['webhooks', 'test', String(created.id), '--json']);
    expect(test.json()).toMatchObject({ event_type: 'chat:created', status: 'pending' });
    expect((await svc(['webhooks', 'deliveries', String(created.id), '--json'])).json<{ items: unknown[] }>().items).toHaveLength(1);
    expect((await svc(['webhooks', 'list', '--all', '--json'])).json()).toMatchObject({ items: [{ id: created.id }], has_more_pages: false });
    expect((await svc(['webhooks', 'deliveries', String(created.id), '--all', '--json'])).json()).toMatchObject({ has_more_pages: false });
    expect((await svc(['webhooks', 'delete', String(created.id), '--yes', '--json'])).json()).toEqual({ deleted: true, id: created.id });
  });

  it('errors: --enable with --disable is a usage error; an unknown id exits 1 with not found', async () => {
    const svc = localSvc();
    expect((await svc(['webhooks', 'update', '1', '--enable', '--disable'])).code).toBe(2);
    expect((await svc(['webhooks', 'update', '1'])).code).toBe(2);
    const missing = await svc(['webhooks', 'get', '42']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not found/);
    const bad = await svc(['webhooks', 'create', '--event', 'nope', '--url', 'http://x.example']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown event "nope"');
    expect(bad.stderr).toContain('message:new, message:received:new');
    const typo = await svc(['webhooks', 'create', '--event', 'message:nwe', '--url', 'http://x.example', '--json']);
    expect(typo.code).toBe(2);
    expect(JSON.parse(typo.stderr)).toMatchObject({ error: { code: 'usage_error', hint: 'did you mean "message:new"?' } });
    const partnerTypo = await svc(['partner', 'webhooks', 'create', '--event', 'messenger_account:conected', '--url', 'http://x.example']);
    expect(partnerTypo.stderr).toContain('did you mean "messenger_account:connected"?');
    const listenTypo = await svc(['webhooks', 'listen', '--events', 'chat:asigned']);
    expect(listenTypo.code).toBe(2);
    expect(listenTypo.stderr).toContain('did you mean "chat:assigned"?');
  });
});
