import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { serve } from '../../src/http/serve.js';
import { openEngine } from '../../src/runtime/open-engine.js';

/** A receiver on 127.0.0.1:0 that answers 200 and keeps every body. */
async function startReceiver() {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString());
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hook`,
    bodies,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('svc serve: links in webhook payloads', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  interface SentBody {
    chat: { chat_url: string };
    message: { attachments: Array<{ temporary_download_url: string }> };
  }

  /** Serves a fresh data directory, sends one message with an attachment and checks its message:sent:new body. */
  const withSentEvent = async (publicUrl: string | undefined, check: (serverUrl: string, body: SentBody) => Promise<void>) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-links-'));
    dirs.push(dataDir);
    const setup = await openEngine({ dataDir, dev: true });
    const { workspace_id: workspaceId, token } = await setup.ensureLocalWorkspace();
    const file = await setup.workspace(workspaceId).uploadFile({ filename: 'a.txt', mimetype: 'text/plain', content: Buffer.from('hello') });
    await setup.close();
    const rx = await startReceiver();
    const server = await serve({ port: 0, host: '127.0.0.1', dataDir, dev: true, publicUrl, log: () => undefined });
    try {
      const post = async (path: string, body: unknown) => {
        const res = await request(`${server.url}/api${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.statusCode, await res.body.text()).toBe(200);
      };
      await post('/webhooks', { event_type: 'message:sent:new', url: rx.url });
      await post('/messages', { phone: '+14155550123', text: 'Hello', file_uid: file.uid });
      const deadline = Date.now() + 10_000;
      while (rx.bodies.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(rx.bodies).toHaveLength(1);
      await check(server.url, JSON.parse(rx.bodies[0]!) as SentBody);
    } finally {
      await server.close();
      await rx.close();
    }
  };

  it('without --public-url: chat_url and attachment links use the real listening URL (port 0 resolved)', async () => {
    await withSentEvent(undefined, async (serverUrl, body) => {
      expect(serverUrl).not.toBe('http://127.0.0.1:8080');
      expect(body.chat.chat_url).toMatch(new RegExp(`^${serverUrl}/api/chats/\\d+$`));
      const link = body.message.attachments[0]!.temporary_download_url;
      expect(link.startsWith(`${serverUrl}/`)).toBe(true);
      // The link works against this very server.
      const download = await request(link);
      expect(download.statusCode).toBe(200);
      expect(await download.body.text()).toBe('hello');
    });
  });

  it('with --public-url: links use it, not the listening URL', async () => {
    await withSentEvent('https://svc.example.com', async (_serverUrl, body) => {
      expect(body.chat.chat_url).toMatch(/^https:\/\/svc\.example\.com\/api\/chats\/\d+$/);
      expect(body.message.attachments[0]!.temporary_download_url.startsWith('https://svc.example.com/')).toBe(true);
    });
  });
});
