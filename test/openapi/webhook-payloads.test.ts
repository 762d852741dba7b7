/**
 * The `webhooks` sections of both documents against real deliveries: one partner workspace is driven through
 * all 12 workspace events and all 6 partner events, each delivery lands at a real receiver, and its body must
 * match the documented schema of its event and carry every documented (required) header.
 */
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { STORES, storeDatabase, type Store } from '../support/store-engine.js';
import { EVENT_TYPES } from '../../src/wire/webhook-events.js';
import { PARTNER_EVENTS } from '../../src/engine/events.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/webhook-helpers.js';
import { DocumentChecker } from '../support/document-checker.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// Both stores: the documented shapes hold whichever store built the bodies.
for (const store of STORES) describe(`on ${store}`, () => webhookPayloadSuite(store));

function webhookPayloadSuite(store: Store): void {
  let engine: ReturnType<typeof createEngine>;
  let app: ReturnType<typeof buildServer>;
  let origin: string;
  let rx: Receiver;
  let docs: { api: Doc; partner: Doc };
  let storeDb: Awaited<ReturnType<typeof storeDatabase>> | undefined;
  beforeAll(async () => {
    storeDb = await storeDatabase(store);
    // Dev URL policy, so subscriptions may point at the receiver on 127.0.0.1; real workers and HTTP deliveries.
    engine = createEngine({ database: storeDb.database, config: { dev: true } });
    engine.workers.start();
    app = buildServer({ engine, rateLimitPerMinute: 0 });
    origin = await app.listen({ host: '127.0.0.1', port: 0 });
    rx = await startReceiver();
    const get = async (path: string) => (await (await fetch(`${origin}${path}`)).json()) as Doc;
    docs = { api: await get('/api/openapi.json'), partner: await get('/partner/openapi.json') };
  });
  afterAll(async () => {
    await app?.close();
    await engine?.close();
    await rx?.close();
    await storeDb?.drop();
  });

  /** A call to `/api` or `/partner` over HTTP; partner calls carry a JWT signed by jsonwebtoken, not the server's jose. */
  async function call<T = Doc>(method: string, path: string, auth: { token: string } | { partnerId: string; secret: string }, body?: object): Promise<T> {
    const headers: Record<string, string> =
      'token' in auth
        ? { authorization: `Bearer ${auth.token}` }
        : { authorization: `Bearer ${jwt.sign({ partner_id: auth.partnerId }, auth.secret, { algorithm: 'HS256', expiresIn: 300 })}`, 'x-svc-partner-id': auth.partnerId };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${origin}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await response.json()) as { data: T };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  }

  async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const start = Date.now();
    while (!check()) {
      if (Date.now() - start > timeoutMs) throw new Error(`${what}: not in time`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Problems of one delivery against the document's entry for its event: body schema and required headers. */
  function problemsOf(doc: Doc, checker: DocumentChecker, event: string, request: ReceivedRequest): string[] {
    const operation = doc.webhooks[event]?.post;
    if (operation === undefined) return [`${event}: not in the webhooks section`];
    const headers = (operation.parameters as Array<{ name: string; required?: boolean }>).filter((p) => p.required === true);
    const missing = headers.filter((h) => request.headers[h.name.toLowerCase()] === undefined).map((h) => `${event}: header ${h.name} missing`);
    const pointer = `/webhooks/${event.replace(/~/g, '~0').replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema`;
    return [...missing, ...checker.matches(pointer, JSON.parse(request.body)).map((error) => `${event}: ${error}`)];
  }

  describe(`webhooks sections against real deliveries on ${store}`, () => {
    it('all 12 workspace and 6 partner events: each body matches its documented schema, with its signature headers', async () => {
      const created = await engine.admin.createPartner({ name: 'Doc check' });
      const partner = { partnerId: created.partner_id, secret: created.partner_secret };
      for (const event of PARTNER_EVENTS) await call('POST', '/partner/webhooks', partner, { event_type: event, url: `${rx.url}/partner/${event}` });
      const { workspace_id: ws } = await call<{ workspace_id: number }>('POST', '/partner/workspaces', partner, { display_name: 'Shop', seats_purchased: 2 });
      await engine.admin.updateWorkspace(ws, { quota: 10, plan: 'business', send_interval_ms: 0 });
      const { token } = await call<{ token: string }>('GET', `/partner/workspaces/${ws}/api-token`, partner);
      for (const event of EVENT_TYPES) await call('POST', '/api/webhooks', { token }, { event_type: event, url: `${rx.url}/workspace/${event}` });

      const [user] = await call<Array<{ user_id: number }>>('POST', `/partner/workspaces/${ws}/users`, partner, { count: 1 });
      const { qr_link } = await call<{ qr_link: string }>('POST', `/partner/workspaces/${ws}/users/${user!.user_id}/qr`, partner, {});
      const phone = '+15550007001';
      await engine.connect.scan({ qr_link, phone }); // messenger:account:connected, messenger_account:connected
      await call('POST', `/partner/workspaces/${ws}/users`, partner, { count: 1 }); // workspace:seats_full
      // A contact writes first: message:new, message:received:new, chat:created, chat:received:created.
      await engine.sim(ws).receive({ from: '+4915112347001', to: phone, text: 'Hello' });
      // The workspace writes first, with an attachment: chat:sent:created, message:sent:new once sent.
      const file = await engine.workspace(ws).uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('hi') });
      const sent = await call<{ chat_id: number }>('POST', '/api/messages', { token }, { phone: '+4915112347002', text: 'Hi', file_uid: file.uid });
      // The contact replies to the sent message once it is out: reply_to_uid is present.
      await until(() => rx.requests.some((r) => r.url === '/workspace/message:sent:new'), 'the sent message');
      const sentUid = (JSON.parse(rx.requests.find((r) => r.url === '/workspace/message:sent:new')!.body) as Doc)['message']['message_uid'] as string;
      await engine.sim(ws).receive({ from: '+4915112347002', to: phone, text: 'Thanks', reply_to: sentUid });
      const hooks = await call<{ items: Array<{ id: number; event_type: string }> }>('GET', '/api/webhooks', { token });
      await call('POST', `/api/webhooks/${hooks.items.find((h) => h.event_type === 'message:new')!.id}/test`, { token }); // a sample with reactions
      await call('PATCH', `/api/chats/${sent.chat_id}`, { token }, { responsible: 'ann@example.com' }); // chat:assigned
      await call('PATCH', `/api/chats/${sent.chat_id}`, { token }, { responsible: '' }); // chat:unassigned
      for (let i = 0; i < 8; i += 1) await call('POST', '/api/messages', { token }, { phone: `+41445550${i}00`, text: `n${i}` }); // quota alerts
      await engine.sim(ws).suspend(phone);
      await engine.sim(ws).resume(phone);
      await call('POST', `/partner/workspaces/${ws}/users/${user!.user_id}/messenger/disconnect`, partner); // both disconnected events
      await call('POST', `/partner/workspaces/${ws}/api-token`, partner); // api-token:rotated, last: it ends `token`

      const paths = [...EVENT_TYPES.map((e) => `/workspace/${e}`), ...PARTNER_EVENTS.map((e) => `/partner/${e}`)];
      await until(() => paths.every((path) => rx.requests.some((r) => r.url === path)), 'a delivery of every event');

      const checkers = { workspace: new DocumentChecker(docs.api, 'api-hooks'), partner: new DocumentChecker(docs.partner, 'partner-hooks') };
      const problems = rx.requests.flatMap((request) => {
        const [, area, event] = /^\/(workspace|partner)\/(.+)$/.exec(request.url)!;
        return problemsOf(area === 'workspace' ? docs.api : docs.partner, checkers[area as 'workspace' | 'partner'], event!, request);
      });
      expect(problems).toEqual([]);

      // Fields a chat or message may lack are left out, never null: nobody is responsible for a new chat.
      const received = JSON.parse(rx.requests.find((r) => r.url === '/workspace/message:received:new')!.body) as Doc;
      expect(received['chat']).not.toHaveProperty('responsible_name');
      expect(received['chat']).not.toHaveProperty('responsible_email');
      expect(received['message']).not.toHaveProperty('reply_to_uid');
      expect(received['message']).not.toHaveProperty('reactions');
      // ... and present when the message or chat has them.
      const reply = JSON.parse(rx.requests.find((r) => r.url === '/workspace/message:received:new' && r.body.includes('Thanks'))!.body) as Doc;
      expect(reply['message']['reply_to_uid']).toEqual(expect.any(String));
      const assigned = JSON.parse(rx.requests.find((r) => r.url === '/workspace/chat:assigned')!.body) as Doc;
      expect(assigned['chat']).toMatchObject({ responsible_email: 'ann@example.com', responsible_name: 'ann' });
      const sample = JSON.parse(rx.requests.find((r) => r.url === '/workspace/message:new' && r.body.includes('"test":true'))!.body) as Doc;
      expect(sample['message']['reactions']).toEqual({ '👍': '1' });
      const withFile = JSON.parse(rx.requests.find((r) => r.url === '/workspace/message:sent:new' && r.body.includes('a.txt'))!.body) as Doc;
      expect(withFile['message']['attachments']).toHaveLength(1);
    });

    it('the schemas refuse a body that breaks them, so the check above can fail', () => {
      const checker = new DocumentChecker(docs.partner, 'partner-negative');
      const body = { event_type: 'workspace:seats_full', occurred_at: '2026-11-25T08:00:00.000Z', data: { workspace_id: 1 } };
      const request = { method: 'POST', url: '/', headers: {}, body: JSON.stringify(body) };
      const problems = problemsOf(docs.partner, checker, 'workspace:seats_full', request);
      expect(problems.some((p) => /webhook-signature missing/.test(p))).toBe(true);
      expect(problems.some((p) => /seats_purchased/.test(p))).toBe(true);
      // A sample (`test: true`) may carry empty data, as POST /webhooks/trigger sends it.
      expect(checker.matches('/webhooks/workspace:seats_full/post/requestBody/content/application~1json/schema', { ...body, data: {}, test: true })).toEqual([]);
    });
  });
}
