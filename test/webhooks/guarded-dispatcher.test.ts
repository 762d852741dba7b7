import type { Dispatcher } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGuardedDispatcher, createWebhookDispatcher, type ResolveHost } from '../../src/webhooks/guarded-dispatcher.js';
import { sendWebhook } from '../../src/webhooks/http-sender.js';
import { startReceiver, type Receiver } from '../support/webhook-helpers.js';

/** Public addresses plus the test receiver's loopback address; everything else stays refused. */
const allowLoopbackForTest = (ip: string) => ip === '127.0.0.1' || ip === '93.184.216.34';

describe('createGuardedDispatcher', () => {
  let receiver: Receiver;
  beforeEach(async () => {
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await receiver.close();
  });

  const post = (url: string, dispatcher: Dispatcher) =>
    sendWebhook({ url, headers: {}, body: '{}', timeoutMs: 2000, dispatcher });

  it('createGuardedDispatcher: refuses a host that resolves to a private address, before any byte is sent', async () => {
    const dispatcher = createGuardedDispatcher({ resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] });
    const outcome = await post(`http://hooks.example.test:${receiver.port}/h`, dispatcher);
    expect(outcome).toMatchObject({ ok: false, statusCode: null });
    expect(outcome.error).toMatch(/hooks\.example\.test resolves to a private address \(ERR_WEBHOOK_ADDRESS_NOT_PUBLIC\)$/);
    expect(receiver.requests).toHaveLength(0);
    await dispatcher.close();
  });

  it('createGuardedDispatcher: refuses when any one of several addresses is private', async () => {
    const resolveHost: ResolveHost = async () => [
      { address: '93.184.216.34', family: 4 },
      { address: '::1', family: 6 },
    ];
    const dispatcher = createGuardedDispatcher({ resolveHost, isAllowedAddress: allowLoopbackForTest });
    const outcome = await post(`http://multi.example.test:${receiver.port}/h`, dispatcher);
    expect(outcome.error).toMatch(/resolves to a private address \(ERR_WEBHOOK_ADDRESS_NOT_PUBLIC\)$/);
    await dispatcher.close();
  });

  it('createGuardedDispatcher: refuses IP-literal URLs that are not public (no DNS involved)', async () => {
    let lookups = 0;
    const dispatcher = createGuardedDispatcher({ resolveHost: async () => (lookups++, []) });
    for (const url of [`http://127.0.0.1:${receiver.port}/`, `http://[::ffff:7f00:1]:${receiver.port}/`]) {
      const outcome = await post(url, dispatcher);
      expect(outcome.error, url).toMatch(/is not a public address/);
    }
    expect(lookups).toBe(0);
    expect(receiver.requests).toHaveLength(0);
    await dispatcher.close();
  });

  it('createGuardedDispatcher: DNS rebinding (public on the first lookup, private on the next) is refused at connect time', async () => {
    const answers = ['93.184.216.34', '127.0.0.1'];
    const seen: string[] = [];
    const resolveHost: ResolveHost = async (host) => {
      seen.push(host);
      return [{ address: answers.shift() ?? '127.0.0.1', family: 4 }];
    };
    // The first lookup is what a create-time check would have seen: a public address.
    const firstAnswer = await resolveHost('rebind.example.test');
    expect(firstAnswer[0]?.address).toBe('93.184.216.34');
    // Delivery resolves again, inside the connector, and dials only what it checked.
    const dispatcher = createGuardedDispatcher({ resolveHost });
    const outcome = await post(`http://rebind.example.test:${receiver.port}/h`, dispatcher);
    expect(outcome.error).toMatch(/rebind\.example\.test resolves to a private address \(ERR_WEBHOOK_ADDRESS_NOT_PUBLIC\)$/);
    expect(seen).toEqual(['rebind.example.test', 'rebind.example.test']);
    expect(receiver.requests).toHaveLength(0);
    await dispatcher.close();
  });

  it('createGuardedDispatcher: dials the checked address and keeps the original Host header', async () => {
    const dispatcher = createGuardedDispatcher({
      resolveHost: async () => [{ address: '127.0.0.1', family: 4 }],
      isAllowedAddress: allowLoopbackForTest,
    });
    const outcome = await post(`http://hooks.example.test:${receiver.port}/h`, dispatcher);
    expect(outcome).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(receiver.requests[0]?.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    await dispatcher.close();
  });

  it('createGuardedDispatcher: a failing lookup becomes an error string', async () => {
    const dispatcher = createGuardedDispatcher({
      resolveHost: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
      },
    });
    const outcome = await post('http://nowhere.test/h', dispatcher);
    expect(outcome.error).toMatch(/could not resolve nowhere\.test: getaddrinfo ENOTFOUND/);
    await dispatcher.close();
  });

  it('createWebhookDispatcher: dev mode reaches private addresses, strict mode does not', async () => {
    const dev = createWebhookDispatcher('dev');
    expect(await post(`${receiver.url}/h`, dev)).toMatchObject({ ok: true, statusCode: 200 });
    const strict = createWebhookDispatcher('strict');
    expect((await post(`${receiver.url}/h`, strict)).error).toMatch(/not a public address/);
    const strictByName = createWebhookDispatcher('strict');
    expect((await post(`http://localhost:${receiver.port}/h`, strictByName)).error).toMatch(/localhost resolves to a private address \(ERR_WEBHOOK_ADDRESS_NOT_PUBLIC\)$/);
    await Promise.all([dev.close(), strict.close(), strictByName.close()]);
  });
});
