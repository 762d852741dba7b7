import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { RESPONSE_BODY_CAP_BYTES, sendWebhook } from '../../src/webhooks/http-sender.js';
import { startReceiver, type Receiver } from '../support/webhook-helpers.js';

const body = JSON.stringify({ event_type: 'message:new', message: { message_uid: 'm1' } });
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function receiver(handle: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const r = await startReceiver(handle);
  cleanups.push(() => r.close());
  return r;
}

/** A raw TCP server, for receivers that misbehave below HTTP. */
async function tcpServer(onSocket: (socket: import('node:net').Socket) => void): Promise<number> {
  const server: Server = createServer(onSocket);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

describe('sendWebhook', () => {
  it('sendWebhook: 200 is a success, and the POST carries JSON and our headers', async () => {
    const r = await receiver((_req, res) => res.writeHead(200).end('thanks'));
    const outcome = await sendWebhook({ url: `${r.url}/hooks?x=1`, headers: { 'webhook-id': 'msg_1' }, body });
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    expect(r.requests[0]).toMatchObject({ method: 'POST', url: '/hooks?x=1', body });
    expect(r.requests[0]?.headers['content-type']).toBe('application/json');
    expect(r.requests[0]?.headers['webhook-id']).toBe('msg_1');
  });

  it('sendWebhook: any 2xx counts, with or without a body', async () => {
    const r = await receiver((_req, res) => res.writeHead(204).end());
    expect(await sendWebhook({ url: r.url, headers: {}, body })).toMatchObject({ ok: true, statusCode: 204 });
  });

  it('sendWebhook: 500 is a failure with the status recorded', async () => {
    const r = await receiver((_req, res) => res.writeHead(500).end('boom'));
    expect(await sendWebhook({ url: r.url, headers: {}, body })).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'receiver answered 500',
    });
  });

  it('sendWebhook: a 302 redirect is not followed and counts as a failure', async () => {
    const target = await receiver((_req, res) => res.end('should never be reached'));
    const r = await receiver((_req, res) => res.writeHead(302, { location: `${target.url}/elsewhere` }).end());
    const outcome = await sendWebhook({ url: r.url, headers: {}, body });
    expect(outcome).toMatchObject({ ok: false, statusCode: 302, error: `redirect to ${target.url}/elsewhere not followed` });
    expect(target.requests).toHaveLength(0);
  });

  it('sendWebhook: a receiver that never answers times out (configurable timeout)', async () => {
    const r = await receiver(() => {}); // never responds
    const outcome = await sendWebhook({ url: r.url, headers: {}, body, timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 300 ms' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(2000);
  });

  it('sendWebhook: headers sent but a body that never ends also times out', async () => {
    const r = await receiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
    });
    const outcome = await sendWebhook({ url: r.url, headers: {}, body, timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, statusCode: 200, error: 'timed out after 300 ms' });
  });

  it('sendWebhook: the default timeout is the real 5 seconds', async () => {
    const r = await receiver(() => {});
    const outcome = await sendWebhook({ url: r.url, headers: {}, body });
    expect(outcome).toMatchObject({ ok: false, error: 'timed out after 5000 ms' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(4990);
    expect(outcome.durationMs).toBeLessThan(6500);
  }, 10_000);

  it('sendWebhook: a connection reset is captured as an error string', async () => {
    const port = await tcpServer((socket) => {
      socket.once('data', () => socket.resetAndDestroy());
    });
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body, timeoutMs: 2000 });
    expect(outcome.ok).toBe(false);
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/ECONNRESET|other side closed|socket/i);
  });

  it('sendWebhook: a refused connection is captured as an error string', async () => {
    const port = await tcpServer(() => {});
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup())); // close it: the port now refuses
    const outcome = await sendWebhook({ url: `http://127.0.0.1:${port}/`, headers: {}, body, timeoutMs: 2000 });
    expect(outcome).toMatchObject({ ok: false, statusCode: null });
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });

  it('sendWebhook: a huge response body is read only up to the cap', async () => {
    let written = 0;
    const r = await receiver((_req, res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 97);
      const pump = () => {
        while (written < 50 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    });
    const outcome = await sendWebhook({ url: r.url, headers: {}, body, timeoutMs: 3000 });
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
    expect(RESPONSE_BODY_CAP_BYTES).toBe(4096);
    expect(written).toBeLessThan(50 * 1024 * 1024);
  });

  it('sendWebhook: uses the injected dispatcher and clock', async () => {
    const r = await receiver((_req, res) => res.end());
    const dispatcher = new Agent();
    let ticks = 0;
    const outcome = await sendWebhook({ url: r.url, headers: {}, body, dispatcher, now: () => (ticks++ === 0 ? 1000 : 1042) });
    expect(outcome).toMatchObject({ ok: true, durationMs: 42 });
    await dispatcher.close();
  });
});
