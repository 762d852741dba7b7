import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { createHttpClient } from '../../src/client/http-client.js';
import { openEngine } from '../../src/runtime/open-engine.js';
import { serve } from '../../src/http/serve.js';
import { installShutdownSignals } from '../../src/http/server/shutdown-signals.js';

describe('serve with the real engine', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const localToken = async (dataDir: string): Promise<string> => {
    const engine = await openEngine({ dataDir, dev: true });
    const { token } = await engine.ensureLocalWorkspace();
    await engine.close();
    return token;
  };

  it('POST /api/messages: the local workspace token sends and returns a message_uid', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-http-'));
    dirs.push(dataDir);
    const token = await localToken(dataDir);
    const lines: string[] = [];
    const server = await serve({ port: 0, host: '127.0.0.1', dataDir, dev: true, log: (line) => lines.push(line) });
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await request(`${server.url}/api/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '+14155550123', text: 'Hello' }),
      });
      const body = (await res.body.json()) as { status: string; data: { message_uid: string } };
      expect(res.statusCode).toBe(200);
      expect(body.status).toBe('ok');
      expect(typeof body.data.message_uid).toBe('string');

      const client = createHttpClient({ baseUrl: `${server.url}/api`, token });
      const message = await client.getMessage(body.data.message_uid);
      expect(message.uid).toBe(body.data.message_uid);
      expect((await client.getWorkspace()).messaging_quota.used).toBeGreaterThan(0);
      await client.close();

      const health = await request(`${server.url}/healthz`);
      expect(await health.body.json()).toEqual({ status: 'ok' });
    } finally {
      await server.close();
    }
    // Closing twice is harmless.
    await server.close();
  });

  it('serve: a port in use is an unavailable error with a hint', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-http-'));
    dirs.push(dataDir);
    const first = await serve({ port: 0, host: '127.0.0.1', dataDir, dev: true, log: () => undefined });
    const port = Number(new URL(first.url).port);
    try {
      await expect(serve({ port, host: '127.0.0.1', dataDir, dev: true, log: () => undefined })).rejects.toMatchObject({
        code: 'unavailable',
        hint: 'pick another --port, or --port 0 for a free one',
      });
    } finally {
      await first.close();
    }
  });
});

describe('installShutdownSignals', () => {
  const setup = (close: () => Promise<void>) => {
    const proc = new EventEmitter();
    const exits: number[] = [];
    const lines: string[] = [];
    const uninstall = installShutdownSignals(
      { close },
      { proc, exit: (code) => exits.push(code), log: (line) => lines.push(line) },
    );
    return { proc, exits, lines, uninstall };
  };

  it('SIGTERM: closes the server, then exits 0', async () => {
    let closed = false;
    const { proc, exits } = setup(async () => {
      closed = true;
    });
    proc.emit('SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(true);
    expect(exits).toEqual([0]);
    expect(proc.listenerCount('SIGINT') + proc.listenerCount('SIGTERM')).toBe(0);
  });

  it('SIGINT twice: the second exits at once with 130 while the first still drains', async () => {
    const { proc, exits } = setup(() => new Promise<void>(() => undefined));
    proc.emit('SIGINT');
    expect(exits).toEqual([]);
    proc.emit('SIGINT');
    expect(exits).toEqual([130]);
  });

  it('close failing: exits 1 and says why', async () => {
    const { proc, exits, lines } = setup(async () => {
      throw new Error('disk gone');
    });
    proc.emit('SIGTERM');
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([1]);
    expect(lines).toContain('shutdown failed: disk gone');
  });
});
