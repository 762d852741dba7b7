/**
 * NUL (U+0000) in any text field or path parameter is a 400 validation_error on both stores, over HTTP and
 * through the engine the CLI uses, and nothing is written. (PostgreSQL used to answer 500; SQLite stored it.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { query } from '../../src/store/sql.js';
import { expectSvcError } from '../support/engine-fixtures.js';
import { STORES, storeTestEngine } from '../support/store-engine.js';

const COUNTS = query<{ messages: number; chats: number; templates: number; workspaces: number }>(
  `SELECT (SELECT COUNT(*) FROM messages) AS messages, (SELECT COUNT(*) FROM chats) AS chats,
          (SELECT COUNT(*) FROM attachment_templates) AS templates, (SELECT COUNT(*) FROM workspaces) AS workspaces`,
);

for (const store of STORES) {
  describe(`NUL in text on ${store}`, () => {
    let t: Awaited<ReturnType<typeof storeTestEngine>>;
    let app: FastifyInstance;
    let partnerHeaders: () => Record<string, string>;
    let partnerWorkspace: number;
    let fileUid: string;
    const account = '+15550000001';

    beforeAll(async () => {
      t = await storeTestEngine(store);
      const partner = await t.engine.admin.createPartner({ name: 'Acme' });
      partnerHeaders = () => ({
        authorization: `Bearer ${signPartnerJwt(partner.partner_id, partner.partner_secret, t.clock)}`,
        'x-svc-partner-id': partner.partner_id,
      });
      partnerWorkspace = (await t.engine.partner(partner.partner_id).createWorkspace({ display_name: 'Shop', seats_purchased: 1 })).workspace_id;
      fileUid = (await t.api.uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('hi') })).uid;
      await t.api.sendToPhone({ phone: '+14155550123', text: 'seed', chat_name: 'Seed' });
      app = buildServer({ engine: t.engine, rateLimitPerMinute: 0 });
      await app.ready();
    });
    afterAll(async () => {
      await app?.close();
      await t?.drop();
    });

    const counts = async () => ({ ...(await t.ctx.sql.get(COUNTS))! });

    const cases: Array<[name: string, method: 'GET' | 'POST' | 'PATCH', url: () => string, body: (() => object) | undefined, field: string]> = [
      ['text', 'POST', () => '/api/messages', () => ({ phone: '+14155550124', text: 'a\u0000b' }), 'body field "text"'],
      ['chat_name', 'POST', () => '/api/messages', () => ({ phone: '+14155550124', text: 'a', chat_name: 'x\u0000' }), 'body field "chat_name"'],
      ['label', 'POST', () => '/api/messages', () => ({ phone: '+14155550124', text: 'a', label: '\u0000' }), 'body field "label"'],
      ['to_chat_name', 'POST', () => '/api/messages/to_chat_name', () => ({ chat_name: 'Seed\u0000', text: 'a' }), 'body field "chat_name"'],
      ['template name', 'POST', () => '/api/attachment_templates', () => ({ name: 'n\u0000', file_uid: fileUid }), 'body field "name"'],
      ['/sim/messages text', 'POST', () => '/sim/messages', () => ({ from: '+14155550125', to: account, text: 'a\u0000' }), 'body field "text"'],
      ['partner display_name (create)', 'POST', () => '/partner/workspaces', () => ({ display_name: 'S\u0000', seats_purchased: 1 }), 'body field "display_name"'],
      ['partner display_name (rename)', 'PATCH', () => `/partner/workspaces/${partnerWorkspace}`, () => ({ display_name: 'S\u0000' }), 'body field "display_name"'],
      ['a key of the body', 'POST', () => '/api/messages', () => ({ phone: '+14155550124', text: 'a', 'x\u0000': 1 }), 'body field "x\\u0000"'],
      ['message uid in the path', 'GET', () => '/api/messages/abc%00def', undefined, 'path parameter "uid"'],
      ['file uid in the path', 'GET', () => '/api/files/abc%00def', undefined, 'path parameter "uid"'],
      ['a query value', 'GET', () => '/api/chats?page=1%00', undefined, 'query parameter "page"'],
    ];

    it.each(cases)('%s: 400 validation_error naming the field, nothing written', async (_name, method, url, body, field) => {
      const before = await counts();
      const headers = url().startsWith('/partner') ? partnerHeaders() : { authorization: `Bearer ${t.local.token}` };
      const response = await app.inject({ method, url: url(), headers, ...(body === undefined ? {} : { payload: body() }) });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ status: 'error', error_code: 'validation_error', message: `${field} must not contain the NUL character (U+0000)` });
      expect(await counts()).toEqual(before);
    });

    it('the engine (the CLI and the local client) refuses NUL in every text field and id as well', async () => {
      const before = await counts();
      const partner = t.engine.partner((await t.engine.admin.createPartner({ name: 'Local' })).partner_id);
      const attempts: Array<() => Promise<unknown>> = [
        () => t.api.sendToPhone({ phone: '+14155550124', text: 'a\u0000b' }),
        () => t.api.sendToPhone({ phone: '+14155550124', text: 'a', chat_name: 'x\u0000' }),
        () => t.api.sendToPhone({ phone: '+14155550124', text: 'a', label: '\u0000' }),
        () => t.api.sendToChatName({ chat_name: 'Seed\u0000', text: 'a' }),
        () => t.api.createTemplate({ name: 'n\u0000', file_uid: fileUid }),
        () => t.sim.receive({ from: '+14155550125', to: account, text: 'a\u0000' }),
        () => t.api.getMessage('abc\u0000def'),
        () => t.api.getFile('abc\u0000def'),
        () => partner.createWorkspace({ display_name: 'S\u0000', seats_purchased: 1 }),
      ];
      for (const attempt of attempts) {
        const error = await expectSvcError(attempt, 'validation_error');
        expect(error.message).toMatch(/must not contain the NUL character \(U\+0000\)/);
      }
      // A file name was refused for any control character before: still a validation error.
      await expectSvcError(() => t.api.uploadFile({ filename: 'a\u0000.txt', mimetype: 'text/plain', content: Buffer.from('x') }), 'validation_error');
      expect(await counts()).toEqual(before);
    });

    it('both API documents state the rule', async () => {
      for (const url of ['/api/openapi.json', '/partner/openapi.json']) {
        const doc = (await app.inject({ method: 'GET', url })).json() as { info: { description: string } };
        expect(doc.info.description, url).toContain('may contain the NUL character (U+0000): such a request is refused with 400 validation_error');
      }
    });

    it('text without NUL, U+FFFD and other control characters included, is still accepted', async () => {
      const response = await app.inject({
        method: 'POST',
        url: '/api/messages',
        headers: { authorization: `Bearer ${t.local.token}` },
        payload: { phone: '+14155550126', text: 'tab\there \uFFFD \u0001 ok' },
      });
      expect(response.statusCode, response.body).toBe(200);
    });
  });
}
