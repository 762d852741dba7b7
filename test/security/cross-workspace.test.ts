import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partnerFixture } from '../support/partner-fixtures.js';
import { type RouteEntry, twoWorkspaces } from '../support/two-workspaces.js';

type Fx = Awaited<ReturnType<typeof twoWorkspaces>>;
type Req = { method: string; url: string; payload?: unknown; headers?: Record<string, string> };
/** `refused`: B's request must fail (4xx). `own`: B may succeed, on its own data only. */
type Case = { kind: 'refused' | 'own'; requests: (fx: Fx) => Req[] | Promise<Req[]> };

const json = (method: string, url: string, payload?: unknown): Req => ({ method, url, ...(payload === undefined ? {} : { payload }) });
const refused = (requests: Case['requests']): Case => ({ kind: 'refused', requests });
const own = (requests: Case['requests']): Case => ({ kind: 'own', requests });

const boundary = 'svcsecurityboundary';
const upload: Req = {
  method: 'POST',
  url: '/api/files_upload',
  headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  payload: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="b.txt"\r\nContent-Type: text/plain\r\n\r\nB file\r\n--${boundary}--\r\n`,
};

/** One isolation case per authenticated route; a route missing here fails the coverage test. */
const PUBLIC_CASES: Record<string, Case> = {
  'POST /api/messages': refused(({ a, resources: r }) => [json('POST', '/api/messages', { phone: r.contactPhone, text: 'x', messenger_account_phone: a.phone })]),
  'POST /api/messages/to_chat_name': refused(({ resources: r }) => [json('POST', '/api/messages/to_chat_name', { chat_name: r.chatName, text: 'x' })]),
  'POST /api/chats/:id/messages': refused(({ resources: r }) => [json('POST', `/api/chats/${r.chatId}/messages`, { text: 'x' })]),
  'GET /api/messages/:uid': refused(({ resources: r }) => [json('GET', `/api/messages/${r.messageUid}`), json('GET', `/api/messages/${r.incomingUid}`)]),
  'GET /api/chats': own(() => [json('GET', '/api/chats'), json('GET', '/api/chats?page=2')]),
  'GET /api/chats/:id': refused(({ resources: r }) => [json('GET', `/api/chats/${r.chatId}`)]),
  'PATCH /api/chats/:id': refused(({ resources: r }) => [
    json('PATCH', `/api/chats/${r.chatId}`, { responsible: 'eve@b.example' }),
    json('PATCH', `/api/chats/${r.chatId}`, { name: 'renamed by B' }),
    json('PATCH', `/api/chats/${r.chatId}`, { responsible: '' }),
  ]),
  'GET /api/chats/:id/messages': refused(({ resources: r }) => [json('GET', `/api/chats/${r.chatId}/messages`)]),
  'POST /api/files_upload': own(() => [upload]),
  'GET /api/files': own(() => [json('GET', '/api/files')]),
  'GET /api/files/:uid': refused(({ resources: r }) => [json('GET', `/api/files/${r.fileUid}`)]),
  'DELETE /api/files/:uid': refused(({ resources: r }) => [json('DELETE', `/api/files/${r.fileUid}`)]),
  'GET /files/:uid': refused(async ({ b, resources: r }) => {
    // B's own valid signature does not open A's file.
    const uploaded = await b.api.uploadFile({ filename: 'b', mimetype: 'text/plain', content: Buffer.from('b') });
    const mine = new URL((await b.api.getFile(uploaded.uid)).temporary_download_url!);
    return [json('GET', `/files/${r.fileUid}${mine.search}`)];
  }),
  'GET /api/messenger_accounts': own(() => [json('GET', '/api/messenger_accounts')]),
  'GET /api/workspace': own(() => [json('GET', '/api/workspace')]),
  'GET /api/attachment_templates': own(() => [json('GET', '/api/attachment_templates')]),
  'POST /api/attachment_templates': refused(({ resources: r }) => [json('POST', '/api/attachment_templates', { name: 'steal', file_uid: r.fileUid })]),
  'GET /api/webhooks': own(() => [json('GET', '/api/webhooks')]),
  'POST /api/webhooks': own(() => [json('POST', '/api/webhooks', { event_type: 'message:new', url: 'https://example.com/b-hook', enabled: true })]),
  'GET /api/webhooks/:id': refused(({ resources: r }) => [json('GET', `/api/webhooks/${r.hookId}`)]),
  'PUT /api/webhooks/:id': refused(({ resources: r }) => [json('PUT', `/api/webhooks/${r.hookId}`, { url: 'https://evil.example/steal', enabled: false })]),
  'DELETE /api/webhooks/:id': refused(({ resources: r }) => [json('DELETE', `/api/webhooks/${r.hookId}`)]),
  'GET /api/webhooks/:id/secret': refused(({ resources: r }) => [json('GET', `/api/webhooks/${r.hookId}/secret`)]),
  'GET /api/webhooks/:id/deliveries': refused(({ resources: r }) => [json('GET', `/api/webhooks/${r.hookId}/deliveries`)]),
  'POST /api/webhooks/:id/deliveries/:deliveryId/redeliver': refused(async ({ engine, b, resources: r }) => {
    const bHook = await engine.webhooks(b.workspace_id).create({ event_type: 'message:new', url: 'https://example.com/b2', enabled: true });
    return [
      json('POST', `/api/webhooks/${r.hookId}/deliveries/${r.deliveryId}/redeliver`),
      // B's own subscription with A's delivery id.
      json('POST', `/api/webhooks/${bHook.id}/deliveries/${r.deliveryId}/redeliver`),
    ];
  }),
  'POST /api/webhooks/trigger': own(() => [json('POST', '/api/webhooks/trigger', { event_type: 'message:new' })]),
  'POST /api/webhooks/:id/test': refused(({ resources: r }) => [json('POST', `/api/webhooks/${r.hookId}/test`)]),
  'GET /api/webhooks/listen/secret': own(() => [json('GET', '/api/webhooks/listen/secret')]),
  'POST /api/webhooks/listen': own(() => [json('POST', '/api/webhooks/listen', {})]),
  'GET /api/webhooks/listen/:id/stream': refused(({ resources: r }) => [json('GET', `/api/webhooks/listen/${r.sessionId}/stream`)]),
  'POST /api/webhooks/listen/:id/results': refused(({ resources: r }) => [
    json('POST', `/api/webhooks/listen/${r.sessionId}/results`, { delivery_id: r.deliveryId, status_code: 200, duration_ms: 1, error: null }),
  ]),
  'DELETE /api/webhooks/listen/:id': refused(({ resources: r }) => [json('DELETE', `/api/webhooks/listen/${r.sessionId}`)]),
  'POST /sim/accounts/connect': refused(({ a }) => [json('POST', '/sim/accounts/connect', { phone: a.phone })]),
  'POST /sim/messages': refused(({ a, resources: r }) => [json('POST', '/sim/messages', { from: r.contactPhone, to: a.phone, text: 'forged' })]),
  'POST /sim/reactions': refused(({ resources: r }) => [json('POST', '/sim/reactions', { message_uid: r.incomingUid, emoji: '👍' })]),
  'POST /sim/accounts/:phone/disconnect': refused(({ a }) => [json('POST', `/sim/accounts/${encodeURIComponent(a.phone)}/disconnect`)]),
  'POST /sim/accounts/:phone/suspend': refused(({ a }) => [json('POST', `/sim/accounts/${encodeURIComponent(a.phone)}/suspend`)]),
  'POST /sim/accounts/:phone/resume': refused(({ a }) => [json('POST', `/sim/accounts/${encodeURIComponent(a.phone)}/resume`)]),
  // B may mark numbers unreachable for its own sends; A's sends to the same contact must not be affected.
  'PUT /sim/numbers/:phone/unreachable': own(({ resources: r }) => [json('PUT', `/sim/numbers/${encodeURIComponent(r.contactPhone)}/unreachable`, { unreachable: true })]),
};

const key = (route: RouteEntry) => `${route.method} ${route.url}`;

describe('cross-workspace isolation: Public API and /sim with B’s token against A’s resources', () => {
  let fx: Fx;
  let before: string;
  const answers: Array<{ name: string; kind: Case['kind']; status: number; body: string; request: string }> = [];

  beforeAll(async () => {
    fx = await twoWorkspaces();
    before = await fx.snapshot();
    for (const [name, c] of Object.entries(PUBLIC_CASES)) {
      for (const req of await c.requests(fx)) {
        const headers = { authorization: `Bearer ${fx.b.token}`, ...req.headers };
        const payload = req.payload === undefined ? {} : { payload: req.payload as string };
        const response = await fx.app.inject({ method: req.method as 'GET', url: req.url, headers, ...payload });
        answers.push({ name, kind: c.kind, status: response.statusCode, body: response.body, request: `${req.url} ${String(req.payload === undefined ? '' : JSON.stringify(req.payload))}` });
      }
    }
  });
  afterAll(async () => {
    await fx.app.close();
    await fx.engine.close();
  });

  it('route table: every authenticated route of /api, /sim and /files has an isolation case', () => {
    const served = fx.routes.filter((r) => /^\/(api|sim|files)(\/|$)/.test(r.url)).map(key);
    expect(served.length).toBeGreaterThan(30);
    expect(served.filter((name) => !(name in PUBLIC_CASES))).toEqual([]);
    expect(Object.keys(PUBLIC_CASES).filter((name) => !served.includes(name))).toEqual([]);
  });

  it('every route: a request addressing A’s resources with B’s token is refused with 403 or 404', () => {
    const wrong = answers.filter((x) => x.kind === 'refused' && ![403, 404, 409].includes(x.status));
    expect(wrong.map((x) => `${x.name} -> ${x.status} ${x.body.slice(0, 200)}`)).toEqual([]);
    const conflicts = answers.filter((x) => x.kind === 'refused' && x.status === 409).map((x) => x.name);
    // Only a phone that is already connected elsewhere is a conflict rather than not-found.
    expect(conflicts).toEqual(['POST /sim/accounts/connect']);
  });

  it('every route: no answer to B carries A’s ids, names, texts, secrets or token', () => {
    const r = fx.resources;
    const secrets = [r.messageUid, r.incomingUid, r.chatName, r.fileUid, r.hookSecret, r.listenSecret, r.sessionId, fx.a.token,
      'A private text', 'A incoming', 'a-secret.txt', 'A template', 'https://example.com/a-hook', new URL(r.fileUrl).searchParams.get('signature')!];
    // An id B itself sent may be echoed back ("message X not found"); anything else of A's is a leak.
    const leaks = answers.flatMap((x) => secrets.filter((s) => x.body.includes(s) && !x.request.includes(s)).map((s) => `${x.name} leaks ${s}`));
    expect(leaks).toEqual([]);
    expect(answers.filter((x) => x.kind === 'own' && x.status >= 300).map((x) => `${x.name} -> ${x.status}`)).toEqual([]);
  });

  it('every route: A’s data is unchanged afterwards, and A still reaches its own resources', async () => {
    expect(JSON.parse(await fx.snapshot())).toEqual(JSON.parse(before));
    const mine = await fx.app.inject({ method: 'GET', url: `/api/chats/${fx.resources.chatId}`, headers: { authorization: `Bearer ${fx.a.token}` } });
    expect(mine.statusCode).toBe(200);
    const download = await fx.app.inject({ method: 'GET', url: fx.resources.fileUrl.replace(/^https?:\/\/[^/]+/, '') });
    expect(download.body).toBe('A file content');
  });

  it('PUT /sim/numbers/:phone/unreachable: B marking a number unreachable does not fail A’s sends to it', async () => {
    const sent = await fx.a.api.sendToPhone({ phone: fx.resources.contactPhone, text: 'after B' });
    for (let i = 0; i < 5; i += 1) {
      fx.clock.advance(5_000);
      await fx.engine.workers.runDue();
    }
    expect(await fx.a.api.getMessage(sent.message_uid)).toMatchObject({ status: 'Sent', failure_reason: null });
  });
});

describe('cross-partner isolation: partner P2 against P1’s workspaces and users', () => {
  it('every partner route: P2 with P1’s ids gets 404 and P1’s workspace, users and token are unchanged', async () => {
    const fx = await partnerFixture();
    const routes: RouteEntry[] = [];
    fx.app.addHook('onRoute', (route) => {
      if (route.config?.skipAuth !== true) for (const m of [route.method].flat()) if (m !== 'HEAD') routes.push({ method: m, url: route.url });
    });
    const ws = (await fx.call('POST', '/workspaces', { display_name: 'P1 workspace', seats_purchased: 3 })).body.data.workspace_id as number;
    const user = (await fx.call('POST', `/workspaces/${ws}/users`, { count: 1 })).body.data[0].user_id as number;
    await fx.call('POST', `/workspaces/${ws}/users/${user}/qr`, {});
    await fx.engine.sim(ws).connect({ phone: '+15550004444', userId: user } as never);
    const hooks = fx.api.webhooks();
    const hook = await hooks.create({ event_type: 'messenger_account:connected', url: 'https://example.com/p1-hook', enabled: true });
    const delivery = await hooks.test(hook.id);
    const session = await fx.api.listen().open({});
    const otherHook = await fx.engine.partner(fx.other.partner_id).webhooks().create({ event_type: 'api-token:rotated', url: 'https://example.com/p2', enabled: true });
    const snapshot = async () => JSON.stringify([
      (await fx.call('GET', `/workspaces/${ws}`)).body, (await fx.call('GET', `/workspaces/${ws}/users`)).body, (await fx.call('GET', `/workspaces/${ws}/api-token`)).body,
      await hooks.list(1), await hooks.secret(hook.id), (await hooks.deliveries(hook.id, 1)).items.map(({ id, status }) => ({ id, status })),
      await fx.api.listen().get(session.id),
    ]);
    const before = await snapshot();

    const attempts: Array<[string, 'GET' | 'POST' | 'PATCH', string, object?]> = [
      ['GET /partner/workspaces/:id', 'GET', `/workspaces/${ws}`],
      ['PATCH /partner/workspaces/:id', 'PATCH', `/workspaces/${ws}`, { display_name: 'pwned', seats_purchased: 1 }],
      ['POST /partner/workspaces/:id/users', 'POST', `/workspaces/${ws}/users`, { count: 1 }],
      ['GET /partner/workspaces/:id/users', 'GET', `/workspaces/${ws}/users`],
      ['POST /partner/workspaces/:id/users/:user_id/qr', 'POST', `/workspaces/${ws}/users/${user}/qr`, {}],
      ['POST /partner/workspaces/:id/users/:user_id/messenger/disconnect', 'POST', `/workspaces/${ws}/users/${user}/messenger/disconnect`],
      ['GET /partner/workspaces/:id/api-token', 'GET', `/workspaces/${ws}/api-token`],
      ['POST /partner/workspaces/:id/api-token', 'POST', `/workspaces/${ws}/api-token`],
      ['GET /partner/webhooks/:id', 'GET', `/webhooks/${hook.id}`],
      ['PUT /partner/webhooks/:id', 'PUT' as 'PATCH', `/webhooks/${hook.id}`, { url: 'https://evil.example/steal' }],
      ['DELETE /partner/webhooks/:id', 'DELETE' as 'GET', `/webhooks/${hook.id}`],
      ['GET /partner/webhooks/:id/secret', 'GET', `/webhooks/${hook.id}/secret`],
      ['GET /partner/webhooks/:id/deliveries', 'GET', `/webhooks/${hook.id}/deliveries`],
      ['POST /partner/webhooks/:id/deliveries/:deliveryId/redeliver', 'POST', `/webhooks/${otherHook.id}/deliveries/${delivery.id}/redeliver`],
      ['POST /partner/webhooks/:id/test', 'POST', `/webhooks/${hook.id}/test`],
      ['GET /partner/webhooks/listen/:id/stream', 'GET', `/webhooks/listen/${session.id}/stream`],
      ['POST /partner/webhooks/listen/:id/results', 'POST', `/webhooks/listen/${session.id}/results`, { delivery_id: delivery.id, status_code: 200, duration_ms: 1, error: null }],
      ['DELETE /partner/webhooks/listen/:id', 'DELETE' as 'GET', `/webhooks/listen/${session.id}`],
    ];
    const ownRoutes = ['GET /partner/me', 'POST /partner/workspaces', 'GET /partner/webhooks', 'POST /partner/webhooks', 'POST /partner/webhooks/trigger', 'GET /partner/webhooks/listen/secret', 'POST /partner/webhooks/listen'];
    const served = routes.filter((r) => r.url.startsWith('/partner/')).map(key);
    expect(served.filter((name) => !ownRoutes.includes(name) && !attempts.some(([n]) => n === name))).toEqual([]);

    const results = [];
    for (const [name, method, url, body] of attempts) {
      const { status, body: answer } = await fx.call(method, url, body, fx.other);
      results.push(`${name} -> ${status} ${answer.error_code ?? ''}`);
      expect(JSON.stringify(answer)).not.toContain('P1 workspace');
      expect(JSON.stringify(answer)).not.toContain(hook.secret);
    }
    // P2 firing P1's event type queues nothing for P1's subscription (the snapshot below holds its deliveries).
    const triggered = await fx.call('POST', '/webhooks/trigger', { event_type: 'messenger_account:connected' }, fx.other);
    expect(triggered.body.data).toMatchObject({ deliveries: 0 });
    const listed = await fx.call('GET', '/webhooks', undefined, fx.other);
    expect(listed.body.data.items.map((h: { id: number }) => h.id)).toEqual([otherHook.id]);
    expect(results).toEqual(attempts.map(([name]) => `${name} -> 404 not_found`));
    expect(await snapshot()).toBe(before);
    await fx.app.close();
    await fx.engine.close();
  });
});
