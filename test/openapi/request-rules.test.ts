/**
 * The request rules the documents state agree with what the server accepts: each sample body is checked
 * against the served document (Ajv) and sent to the server that served it, and "the document allows it"
 * must equal "the server did not answer validation_error". Webhook URLs are tried on a --dev server and on
 * a strict one, whose documents differ as their rules do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { STORES, storeDatabase, type Store } from '../support/store-engine.js';
import { DocumentChecker } from '../support/document-checker.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Server {
  origin: string;
  token: string;
  doc: Doc;
  checker: DocumentChecker;
  close(): Promise<void>;
}

/** A server on 127.0.0.1 port 0 with one workspace and one connected account; `dev` picks the URL policy. */
async function startServer(dev: boolean, store: Store): Promise<Server> {
  const { database, drop } = await storeDatabase(store);
  const engine = createEngine({ database, config: { dev } });
  const app = buildServer({ engine, rateLimitPerMinute: 0 });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const { workspace_id: ws, token } = await engine.admin.createWorkspace({ name: 'Rules', quota: 1000 });
  await engine.sim(ws).connect({ phone: '+15550003001' });
  const doc = (await (await fetch(`${origin}/api/openapi.json`)).json()) as Doc;
  return {
    origin, token, doc,
    checker: new DocumentChecker(doc, `rules-${dev ? 'dev' : 'strict'}`),
    close: async () => {
      await app.close();
      await engine.close();
      await drop();
    },
  };
}

// Both stores: what the document allows must be what either store's server accepts.
for (const store of STORES) describe(`on ${store}`, () => requestRuleSuite(store));

function requestRuleSuite(store: Store): void {
  let dev: Server;
  let strict: Server;
  beforeAll(async () => {
    [dev, strict] = await Promise.all([startServer(true, store), startServer(false, store)]);
  });
  afterAll(async () => {
    await Promise.all([dev?.close(), strict?.close()]);
  });

  const bodyPointer = (path: string) => `/paths/${path.replace(/\//g, '~1')}/post/requestBody/content/application~1json/schema`;

  /** For each sample: [what the document says, what the server did], both as "accepted". */
  async function verdicts(server: Server, path: string, samples: object[], documentPath = path): Promise<Array<{ sample: string; documented: boolean; accepted: boolean }>> {
    const out = [];
    for (const sample of samples) {
      const documented = server.checker.matches(bodyPointer(documentPath), sample).length === 0;
      const response = await fetch(`${server.origin}/api${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(sample),
      });
      const body = (await response.json()) as { error_code?: string };
      out.push({ sample: JSON.stringify(sample).slice(0, 80), documented, accepted: body.error_code !== 'validation_error' });
    }
    return out;
  }

  const agree = (rows: Array<{ documented: boolean; accepted: boolean }>) => rows.filter((r) => r.documented !== r.accepted);

  describe(`request rules: document and server agree on ${store}`, () => {
    it('POST /messages: phone pattern, text length in characters, one of text/file/template', async () => {
      const rows = await verdicts(dev, '/messages', [
        { phone: '+14155550123', text: 'Hi' },
        { phone: ' +1 (415) 555-0124 ', text: 'Hi' },
        { phone: 'call me', text: 'Hi' },
        { phone: '\t+14155550130', text: 'Hi' }, // control characters are refused, other whitespace trimmed
        { phone: '+14155550125' },
        { phone: '+14155550126', text: '' },
        { phone: '+14155550127', text: 'x'.repeat(10_001) },
        { phone: '+14155550128', text: 'x'.repeat(10_000) },
        { phone: '+14155550131', text: '😀'.repeat(10_000) }, // 10 000 characters, 20 000 UTF-16 units
        { phone: '+14155550132', text: '😀'.repeat(10_001) },
        { phone: '+14155550129', file_uid: 'f', attachment_template_id: 1 },
        { phone: '+14155550133', text: 'Hi', messenger_account_phone: '' },
        { phone: '+14155550134', text: 'Hi', messenger_account_phone: 'desk' },
        { phone: '+14155550135', text: 'Hi', messenger_account_phone: '+15550003001' },
      ]);
      expect(agree(rows)).toEqual([]);
      // Both verdicts occur, so agreement is not vacuous.
      expect(new Set(rows.map((r) => r.accepted))).toEqual(new Set([true, false]));
    });

    it('POST /chats/{id}/messages: text, or (an extension kept like the other send routes) a file or template alone', async () => {
      const headers = { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' };
      const sent = (await (await fetch(`${dev.origin}/api/messages`, { method: 'POST', headers, body: JSON.stringify({ phone: '+14155550140', text: 'Hi' }) })).json()) as { data: { chat_id: number } };
      const rows = await verdicts(dev, `/chats/${sent.data.chat_id}/messages`, [
        { text: 'Hi' },
        { file_uid: 'f' },
        { attachment_template_id: 1 },
        { text: 'Hi', file_uid: 'f' },
        {},
        { text: '' },
        { file_uid: 'f', attachment_template_id: 1 },
      ], '/chats/{id}/messages');
      expect(agree(rows)).toEqual([]);
      expect(rows.map((r) => r.accepted)).toEqual([true, true, true, true, false, false, false]);
      expect(dev.doc.paths['/chats/{id}/messages'].post.description).toMatch(/minimal body is `text`/);
    });

    it('POST /webhooks: url is https on a strict server, http or https with --dev, never with credentials', async () => {
      const urls = [
        'https://example.com/hooks',
        'https://example.com/a/b?c=d#e',
        'http://example.com/hooks',
        'ftp://example.com/hooks',
        'example.com/hooks',
        'https://user:pw@example.com/hooks',
        'http://127.0.0.1:3000/hooks',
      ];
      const samples = urls.map((url) => ({ event_type: 'message:new', url }));
      const rows = { dev: await verdicts(dev, '/webhooks', samples), strict: await verdicts(strict, '/webhooks', samples) };
      expect(agree(rows.dev)).toEqual([]);
      expect(agree(rows.strict)).toEqual([]);
      expect(rows.dev.map((r) => r.accepted)).toEqual([true, true, true, false, false, false, true]);
      expect(rows.strict.map((r) => r.accepted)).toEqual([true, true, false, false, false, false, false]);
      const url = (server: Server) => server.doc.paths['/webhooks'].post.requestBody.content['application/json'].schema.properties.url;
      expect(url(strict)).toMatchObject({ format: 'uri', pattern: expect.stringMatching(/^\^https:/) });
      // What a pattern cannot say (private hosts) is in the description.
      expect(url(strict).description).toMatch(/public/);
      expect(url(dev).pattern).toMatch(/^\^https\?:/);
    });

    it('bodies the server leaves optional or open are optional and open in the document', () => {
      expect(dev.doc.paths['/webhooks/listen'].post.requestBody.required).toBe(false);
      expect(dev.doc.paths['/webhooks/listen'].post.requestBody.content['application/json'].schema.additionalProperties).toBeUndefined();
    });
  });
}
