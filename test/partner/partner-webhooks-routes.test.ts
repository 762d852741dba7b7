import { afterEach, describe, expect, it } from 'vitest';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx?.app.close();
  await fx?.engine.close();
});

const URL_A = 'https://hooks.example.com/partner-a';

describe('/partner/webhooks over HTTP with a partner JWT', () => {
  it('create, list, get, update, secret, test, deliveries, redeliver, delete', async () => {
    fx = await partnerFixture();
    const created = await fx.call('POST', '/webhooks', { event_type: 'messenger_account:connected', url: URL_A });
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ event_type: 'messenger_account:connected', url: URL_A, enabled: true, errors_counter: 0 });
    expect(created.body.data.secret).toMatch(/^whsec_/);
    const id = created.body.data.id as number;

    const list = await fx.call('GET', '/webhooks');
    expect(list.body.data).toMatchObject({ page: 1, has_more_pages: false, items: [{ id }] });
    expect(list.body.data.items[0]).not.toHaveProperty('secret');
    expect((await fx.call('GET', `/webhooks/${id}`)).body.data).toMatchObject({ id, url: URL_A });
    const updated = await fx.call('PUT', `/webhooks/${id}`, { event_type: 'api-token:rotated', enabled: false });
    expect(updated.body.data).toMatchObject({ id, event_type: 'api-token:rotated', enabled: false, url: URL_A });
    expect((await fx.call('GET', `/webhooks/${id}/secret`)).body.data).toMatchObject({ id, secret: created.body.data.secret });

    // A disabled subscription takes no test event; enabled again, it does.
    expect((await fx.call('POST', `/webhooks/${id}/test`)).status).toBe(409);
    expect((await fx.call('PUT', `/webhooks/${id}`, { enabled: true })).body.data).toMatchObject({ enabled: true });
    const test = await fx.call('POST', `/webhooks/${id}/test`);
    expect(test.status).toBe(200);
    const deliveryId = test.body.data.id as number;
    const deliveries = await fx.call('GET', `/webhooks/${id}/deliveries`);
    expect(deliveries.body.data.items.map((d: { id: number }) => d.id)).toEqual([deliveryId]);
    const again = await fx.call('POST', `/webhooks/${id}/deliveries/${deliveryId}/redeliver`);
    expect(again.body.data).toMatchObject({ webhook_id: test.body.data.webhook_id });

    expect((await fx.call('DELETE', `/webhooks/${id}`)).body.data).toEqual({ deleted: true, id });
    expect((await fx.call('GET', `/webhooks/${id}`)).status).toBe(404);
  });

  it('accepts only partner events: workspace events are a 400 naming the partner events', async () => {
    fx = await partnerFixture();
    const refused = await fx.call('POST', '/webhooks', { event_type: 'message:new', url: URL_A });
    expect(refused.status).toBe(400);
    expect(refused.body.status).toBe('error');
    for (const event of ['workspace:quota_near_full', 'workspace:quota_full', 'workspace:seats_full', 'messenger_account:disconnected']) {
      expect((await fx.call('POST', '/webhooks', { event_type: event, url: URL_A })).status).toBe(200);
    }
    const { id } = (await fx.call('POST', '/webhooks', { event_type: 'api-token:rotated', url: URL_A })).body.data;
    expect((await fx.call('PUT', `/webhooks/${id}`, { event_type: 'chat:created' })).status).toBe(400);
  });

  it('isolation: another partner, and a workspace token, see 404 and an empty list', async () => {
    fx = await partnerFixture();
    const { id } = (await fx.call('POST', '/webhooks', { event_type: 'workspace:seats_full', url: URL_A })).body.data;
    const other = fx.other;
    expect((await fx.call('GET', '/webhooks', undefined, other)).body.data.items).toEqual([]);
    const probes: Array<['GET' | 'PUT' | 'DELETE' | 'POST', string, object?]> = [
      ['GET', `/webhooks/${id}`],
      ['PUT', `/webhooks/${id}`, { enabled: false }],
      ['GET', `/webhooks/${id}/secret`],
      ['GET', `/webhooks/${id}/deliveries`],
      ['POST', `/webhooks/${id}/test`],
      ['DELETE', `/webhooks/${id}`],
    ];
    for (const [method, url, body] of probes) {
      const answer = await fx.call(method, url, body, other);
      expect(answer.status, `${method} ${url}`).toBe(404);
      expect(answer.body.error_code).toBe('not_found');
    }
    // Still there, untouched, for its owner.
    expect((await fx.call('GET', `/webhooks/${id}`)).body.data).toMatchObject({ id, enabled: true });

    // A workspace of that partner, through the Public API, sees neither the list nor the id.
    const ws = (await fx.call('POST', '/workspaces', { display_name: 'Shop', seats_purchased: 1 })).body.data.workspace_id as number;
    const token = (await fx.call('GET', `/workspaces/${ws}/api-token`)).body.data.api_token as string;
    const publicApi = (url: string) => fx.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
    expect((await publicApi(`/api/webhooks/${id}`)).statusCode).toBe(404);
    expect((await publicApi('/api/webhooks')).json().data.items).toEqual([]);
  });

  it('without a valid JWT: 401 with the rule, before anything is created', async () => {
    fx = await partnerFixture();
    const response = await fx.app.inject({ method: 'POST', url: '/partner/webhooks', payload: { event_type: 'api-token:rotated', url: URL_A } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ status: 'error', error_code: 'unauthorized', rule: expect.any(String) });
    expect((await fx.call('GET', '/webhooks')).body.data.items).toEqual([]);
  });

  it('openapi.json lists the webhook routes with the partner events and the partner 401 body', async () => {
    fx = await partnerFixture();
    const doc = (await fx.app.inject({ method: 'GET', url: '/partner/openapi.json' })).json() as { paths: Record<string, Record<string, any>>; components: Record<string, any> };
    const paths = Object.keys(doc.paths);
    for (const path of ['/webhooks', '/webhooks/{id}', '/webhooks/{id}/secret', '/webhooks/{id}/deliveries', '/webhooks/{id}/deliveries/{deliveryId}/redeliver', '/webhooks/{id}/test']) {
      expect(paths.some((p) => p.endsWith(path)), path).toBe(true);
    }
    const webhooks = Object.entries(doc.paths).find(([p]) => p.endsWith('/webhooks'))![1];
    expect(Object.keys(webhooks).sort()).toEqual(['get', 'post']);
    const byId = Object.entries(doc.paths).find(([p]) => p.endsWith('/webhooks/{id}'))![1];
    expect(Object.keys(byId).sort()).toEqual(['delete', 'get', 'put']);
    const body = JSON.stringify(webhooks['post'].requestBody);
    expect(body).toContain('messenger_account:connected');
    expect(body).not.toContain('message:new');
    expect(webhooks['post'].responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PartnerAuthError' });
    expect(doc.components.schemas.PartnerAuthError.required).toContain('rule');
  });
});
