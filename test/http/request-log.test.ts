import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import type { RequestLogFormat } from '../../src/http/server/request-log.js';
import { auth, createFakeEngine } from '../support/fake-engine.js';

const servers: Array<ReturnType<typeof buildServer>> = [];
afterEach(async () => {
  for (const app of servers.splice(0)) await app.close();
});

function logged(format: RequestLogFormat) {
  const chunks: string[] = [];
  const app = buildServer({
    engine: createFakeEngine(),
    requestLog: { format, write: (chunk) => chunks.push(chunk), now: () => new Date('2026-11-25T08:00:00.000Z') },
  });
  servers.push(app);
  // Lines are written as each response finishes; one turn of the event loop lets the last one land.
  const lines = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return chunks.join('').split('\n').filter((line) => line !== '');
  };
  return { app, lines };
}

describe('request log', () => {
  it('text: one line per request with method, path, status and ms', async () => {
    const { app, lines } = logged('text');
    await app.inject({ method: 'GET', url: '/api/workspace', headers: auth() });
    await app.inject({ method: 'GET', url: '/api/workspace' });
    expect(await lines()).toEqual([
      expect.stringMatching(/^2026-11-25T08:00:00\.000Z GET \/api\/workspace 200 \d+(\.\d)?ms$/),
      expect.stringMatching(/^2026-11-25T08:00:00\.000Z GET \/api\/workspace 401 \d+(\.\d)?ms$/),
    ]);
  });

  it('json: the same fields; tokens, download signatures and QR codes are redacted', async () => {
    const { app, lines } = logged('json');
    const token = auth().authorization.replace('Bearer ', '');
    await app.inject({ method: 'GET', url: `/files/file_1?expires=1&signature=s3cr3t-sig&token=${token}`, headers: auth() });
    await app.inject({ method: 'GET', url: '/connect/abcdefghijklmnopqrstuvwxyz012345' });
    const [download, connect] = (await lines()).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(download).toMatchObject({ method: 'GET', path: '/files/file_1?expires=1&signature=[redacted]&token=[redacted]' });
    expect(connect).toMatchObject({ path: '/connect/[redacted]', status: 404 });
    expect(Object.keys(download!).sort()).toEqual(['method', 'ms', 'path', 'status', 'time']);
    const all = (await lines()).join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain('s3cr3t-sig');
    expect(all).not.toContain('abcdefghijklmnop');
  });
});
