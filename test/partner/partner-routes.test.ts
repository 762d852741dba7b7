import { afterEach, describe, expect, it } from 'vitest';
import { codeFromQrLink } from '../../src/partner/pairing.js';
import { partnerEventTypes, partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx?.app.close();
  await fx?.engine.close();
});

async function workspaceWithUsers(seats: number, users: number) {
  const created = await fx.call('POST', '/workspaces', { display_name: 'Acme Dental', seats_purchased: seats });
  const ws = created.body.data.workspace_id as number;
  const batch = users === 0 ? [] : ((await fx.call('POST', `/workspaces/${ws}/users`, { count: users })).body.data as Array<{ user_id: number }>);
  return { ws, userIds: batch.map((u) => u.user_id) };
}

describe('partner workspaces over HTTP', () => {
  it('POST /partner/workspaces: 201 with workspace_id, name and seats', async () => {
    fx = await partnerFixture();
    const { status, body } = await fx.call('POST', '/workspaces', { display_name: 'Acme Dental', seats_purchased: 5 });
    expect(status).toBe(201);
    expect(body.data).toMatchObject({ display_name: 'Acme Dental', seats_purchased: 5, seats_used: 0 });
    expect(body.data.workspace_id).toEqual(expect.any(Number));
  });

  it("GET /partner/workspaces/{id}: another partner's workspace is 404, like a missing one", async () => {
    fx = await partnerFixture();
    const { ws } = await workspaceWithUsers(2, 0);
    expect((await fx.call('GET', `/workspaces/${ws}`)).status).toBe(200);
    const foreign = await fx.call('GET', `/workspaces/${ws}`, undefined, fx.other);
    const missing = await fx.call('GET', '/workspaces/9999', undefined, fx.other);
    expect(foreign).toEqual({ status: 404, body: { status: 'error', error_code: 'not_found', message: `workspace ${ws} not found` } });
    expect(missing.status).toBe(404);
    expect((await fx.call('POST', `/workspaces/${ws}/users`, { count: 1 }, fx.other)).status).toBe(404);
    expect((await fx.call('GET', `/workspaces/${ws}/api-token`, undefined, fx.other)).status).toBe(404);
  });

  it('PATCH /partner/workspaces/{id}: renames, seats go down to the seats in use but not below (409)', async () => {
    fx = await partnerFixture();
    const { ws } = await workspaceWithUsers(5, 3);
    const renamed = await fx.call('PATCH', `/workspaces/${ws}`, { display_name: 'Acme Ortho', seats_purchased: 3 });
    expect(renamed.body.data).toMatchObject({ display_name: 'Acme Ortho', seats_purchased: 3, seats_used: 3 });
    const below = await fx.call('PATCH', `/workspaces/${ws}`, { seats_purchased: 2 });
    expect(below.status).toBe(409);
    expect(below.body.error_code).toBe('conflict');
    expect((await fx.call('PATCH', `/workspaces/${ws}`, { seats_purchased: 10 })).body.data.seats_purchased).toBe(10);
  });
});

describe('partner users over HTTP', () => {
  it('POST /partner/workspaces/{id}/users: a batch beyond the free seats is 409 seats_full and creates nobody', async () => {
    fx = await partnerFixture();
    const { ws } = await workspaceWithUsers(5, 3);
    const refused = await fx.call('POST', `/workspaces/${ws}/users`, { count: 3 });
    expect(refused.status).toBe(409);
    expect(refused.body.error_code).toBe('seats_full');
    expect((await fx.call('GET', `/workspaces/${ws}/users`)).body.data).toMatchObject({ page: 1, has_more_pages: false, items: { length: 3 } });
    expect((await fx.call('POST', `/workspaces/${ws}/users`, { count: 2 })).status).toBe(201);
  });

  it('GET /partner/workspaces/{id}/users: lists users with their connected account', async () => {
    fx = await partnerFixture();
    const { ws, userIds } = await workspaceWithUsers(2, 2);
    const qr = await fx.call('POST', `/workspaces/${ws}/users/${userIds[0]}/qr`, {});
    await fx.engine.connect.scan({ qr_link: qr.body.data.qr_link, phone: '+15550002001' });
    const users = (await fx.call('GET', `/workspaces/${ws}/users`)).body.data.items;
    expect(users[0]).toMatchObject({ user_id: userIds[0], messenger_account: { phone: '+15550002001', status: 'connected' } });
    expect(users[1]).toMatchObject({ user_id: userIds[1], messenger_account: null });
  });
});

describe('partner QR links, scan and disconnect', () => {
  it('POST .../qr: link on the request origin, default 24 h; --public-url wins when set', async () => {
    fx = await partnerFixture();
    const { ws, userIds } = await workspaceWithUsers(1, 1);
    const { status, body } = await fx.call('POST', `/workspaces/${ws}/users/${userIds[0]}/qr`);
    expect(status).toBe(200);
    expect(body.data.qr_link).toMatch(/^http:\/\/localhost(:\d+)?\/connect\/[A-Za-z0-9_-]{32}$/);
    expect(Date.parse(body.data.expires_at) - fx.clock.now()).toBe(24 * 3_600_000);
    await fx.app.close();
    await fx.engine.close();

    fx = await partnerFixture({ publicUrl: 'https://svc.example.com/base' });
    const again = await workspaceWithUsers(1, 1);
    const link = await fx.call('POST', `/workspaces/${again.ws}/users/${again.userIds[0]}/qr`, { expires_in_hours: 168 });
    expect(link.body.data.qr_link).toMatch(/^https:\/\/svc\.example\.com\/base\/connect\//);
    expect((await fx.call('POST', `/workspaces/${again.ws}/users/${again.userIds[0]}/qr`, { expires_in_hours: 169 })).status).toBe(400);
  });

  it('POST .../qr: a new link revokes the previous one', async () => {
    fx = await partnerFixture();
    const { ws, userIds } = await workspaceWithUsers(1, 1);
    const first = (await fx.call('POST', `/workspaces/${ws}/users/${userIds[0]}/qr`, {})).body.data.qr_link as string;
    const second = (await fx.call('POST', `/workspaces/${ws}/users/${userIds[0]}/qr`, {})).body.data.qr_link as string;
    expect((await fx.engine.connect.snapshot(codeFromQrLink(first)!))?.link.revoked_at).toBe(fx.clock.now());
    await expect(fx.engine.connect.scan({ qr_link: first, phone: '+15550002002' })).rejects.toThrow(/revoked/);
    expect(await fx.engine.connect.scan({ qr_link: second, phone: '+15550002002' })).toMatchObject({ status: 'connected', user_id: userIds[0] });
    const page = await fx.app.inject({ method: 'GET', url: new URL(first).pathname, headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(410);
    expect(page.body).toContain('data-state="revoked"');
    const api = await fx.app.inject({ method: 'GET', url: new URL(first).pathname, headers: { accept: 'application/json' } });
    expect(api.statusCode).toBe(410);
    expect(api.json()).toMatchObject({ status: 'error', error_code: 'gone', message: 'connection link revoked' });
  });

  it('sim scan: connects the account and emits the workspace and the partner event; an expired link is refused', async () => {
    fx = await partnerFixture();
    const { ws, userIds } = await workspaceWithUsers(2, 2);
    const link = (await fx.call('POST', `/workspaces/${ws}/users/${userIds[0]}/qr`, { expires_in_hours: 1 })).body.data.qr_link;
    fx.sink.clear();
    const scanned = await fx.app.inject({ method: 'POST', url: '/sim/scan', payload: { qr_link: link, phone: '+15550002003' } });
    expect(scanned.json()).toEqual({ status: 'ok', data: { phone: '+15550002003', status: 'connected', workspace_id: ws, user_id: userIds[0] } });
    expect(fx.sink.types()).toEqual(['messenger:account:connected', 'messenger_account:connected']);
    expect(fx.sink.events[1]).toMatchObject({ workspaceId: ws, data: { workspace_id: ws, user_id: userIds[0], phone: '+15550002003' } });
    expect((await fx.engine.workspace(ws).listAccounts()).items[0]).toMatchObject({ phone: '+15550002003', status: 'connected' });

    const late = (await fx.call('POST', `/workspaces/${ws}/users/${userIds[1]}/qr`, { expires_in_hours: 1 })).body.data.qr_link;
    fx.clock.advance(3_600_000);
    const refused = await fx.app.inject({ method: 'POST', url: '/sim/scan', payload: { qr_link: late, phone: '+15550002004' } });
    expect(refused.statusCode).toBe(409);
  });

  it('POST .../messenger/disconnect: disconnects once with both events; again is a no-op answering false', async () => {
    fx = await partnerFixture();
    const { ws, userIds } = await workspaceWithUsers(1, 1);
    const path = `/workspaces/${ws}/users/${userIds[0]}/messenger/disconnect`;
    expect((await fx.call('POST', path)).body.data).toEqual({ disconnected: false, disconnected_at: null, phone: null });
    const link = (await fx.call('POST', `/workspaces/${ws}/users/${userIds[0]}/qr`)).body.data.qr_link;
    await fx.engine.connect.scan({ qr_link: link, phone: '+15550002005' });
    fx.sink.clear();
    const first = await fx.call('POST', path);
    expect(first.body.data).toEqual({ disconnected: true, disconnected_at: new Date(fx.clock.now()).toISOString(), phone: '+15550002005' });
    expect(fx.sink.types()).toEqual(['messenger:account:disconnected', 'messenger_account:disconnected']);
    expect((await fx.call('POST', path)).body.data).toEqual({ disconnected: false, disconnected_at: null, phone: '+15550002005' });
    expect(fx.sink.types()).toHaveLength(2);
  });
});

describe('partner Public API tokens', () => {
  it('POST .../api-token: the old token fails on the very next request and api-token:rotated is emitted', async () => {
    fx = await partnerFixture();
    const { ws } = await workspaceWithUsers(1, 0);
    const got = (await fx.call('GET', `/workspaces/${ws}/api-token`)).body.data;
    // One name for a workspace token everywhere (`token`); `api_token` stays as a deprecated alias.
    expect(got.api_token).toBe(got.token);
    const old = got.token as string;
    const bearer = (token: string) => fx.app.inject({ method: 'GET', url: '/api/workspace', headers: { authorization: `Bearer ${token}` } });
    expect((await bearer(old)).statusCode).toBe(200);
    fx.sink.clear();
    const rotated = (await fx.call('POST', `/workspaces/${ws}/api-token`)).body.data.token as string;
    expect(rotated).not.toBe(old);
    expect((await bearer(old)).statusCode).toBe(401);
    expect((await bearer(rotated)).statusCode).toBe(200);
    expect(partnerEventTypes(fx.sink)).toEqual(['api-token:rotated']);
    expect((await fx.call('GET', `/workspaces/${ws}/api-token`)).body.data.token).toBe(rotated);
  });
});
