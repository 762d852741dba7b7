import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { SvcClient } from '../../src/client/client.js';
import { createHttpClient } from '../../src/client/http-client.js';
import { SvcError } from '../../src/wire/errors.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { TOKEN, createFakeEngine, type FakeEngine } from '../support/fake-engine.js';

const rejection = async (promise: Promise<unknown>): Promise<SvcError> => {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
};

describe('http client', () => {
  let engine: FakeEngine;
  let app: FastifyInstance;
  let baseUrl: string;
  let client: SvcClient;
  beforeAll(async () => {
    engine = createFakeEngine();
    app = buildServer({ engine, rateLimitPerMinute: 0 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api`;
    client = createHttpClient({ baseUrl, token: TOKEN });
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('target: is the base URL', () => {
    expect(client.target).toBe(baseUrl);
  });

  it('base URL: the server root stands for /api; a wrong path gets the server\'s hint naming /api', async () => {
    const root = createHttpClient({ baseUrl: baseUrl.replace(/\/api$/, '/'), token: TOKEN });
    try {
      expect(root.target).toBe(baseUrl);
      expect((await root.getWorkspace()).id).toBeGreaterThan(0);
    } finally {
      await root.close();
    }
    const wrong = createHttpClient({ baseUrl: baseUrl.replace(/\/api$/, '/v1'), token: TOKEN });
    try {
      const error = await rejection(wrong.getWorkspace());
      expect(error.code).toBe('not_found');
      expect(error.hint).toContain('/api');
    } finally {
      await wrong.close();
    }
  });

  it('sendToPhone: returns the data of the envelope', async () => {
    const result = await client.sendToPhone({ phone: '+14155550123', text: 'Hi' });
    expect(result).toMatchObject({ status: 'Pending', chat_id: 1, credits: 1 });
    expect(result.message_uid).toMatch(/^msg_/);
  });

  it('sendToChatName, sendToChat, getMessage: reach their routes', async () => {
    expect((await client.sendToChatName({ chat_name: 'Alice', text: 'Hi' })).message_uid).toMatch(/^msg_/);
    expect((await client.sendToChat(4, { text: 'Hi' })).chat_id).toBe(1);
    expect((await client.getMessage('msg/odd uid')).uid).toBe('msg/odd uid');
  });

  it('chats: list, get, update, messages', async () => {
    expect((await client.listChats()).items).toHaveLength(2);
    expect((await client.listChats(2)).items).toHaveLength(0);
    expect((await client.getChat(2)).name).toBe('Chat 2');
    expect((await client.updateChat(2, { name: 'Bob' })).name).toBe('Bob');
    expect((await client.listChatMessages(2, 1)).items[0]?.uid).toBe('msg_a');
  });

  it('files: upload bytes, list, get, delete', async () => {
    const bytes = new Uint8Array([0, 255, 1, 2, 3]);
    const file = await client.uploadFile({ filename: 'a b.bin', mimetype: 'application/octet-stream', content: bytes });
    expect(file).toMatchObject({ filename: 'a b.bin', size: 5 });
    expect([...(engine.files.get(file.uid)?.content ?? [])]).toEqual([...bytes]);
    expect((await client.listFiles()).items.map((f) => f.uid)).toContain(file.uid);
    expect((await client.getFile(file.uid)).temporary_download_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
    expect(await client.deleteFile(file.uid)).toEqual({ deleted: true, uid: file.uid });
  });

  it('accounts, workspace, templates: reach their routes', async () => {
    expect((await client.listAccounts()).items[0]?.phone).toBe('+15550001');
    expect((await client.getWorkspace()).plan).toBe('standard');
    const template = await client.createTemplate({ name: 'T', file_uid: 'file_1' });
    expect((await client.listTemplates()).items).toContainEqual(template);
  });

  it('sim: every control reaches /sim beside /api', async () => {
    expect(await client.sim.connect({ phone: '+15550002' })).toEqual({ phone: '+15550002', status: 'connected' });
    expect((await client.sim.receive({ from: '+4915112345', to: '+15550002', text: 'Hi' })).chat_id).toBe(1);
    expect(await client.sim.react({ message_uid: 'm', emoji: '❤️' })).toEqual({ message_uid: 'm', reactions: { '❤️': '1' } });
    expect((await client.sim.disconnect('+15550002')).status).toBe('disconnected');
    expect((await client.sim.suspend('+15550002')).status).toBe('suspended');
    expect((await client.sim.resume('+15550002')).status).toBe('connected');
    expect(await client.sim.setUnreachable('+15550003', true)).toEqual({ phone: '+15550003', unreachable: true });
  });

  it('getChat: an error body becomes an SvcError with its code and message', async () => {
    const error = await rejection(client.getChat(999));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe('Chat 999 not found');
  });

  it('sendToPhone: each catalogue error thrown by the engine arrives with its code', async () => {
    for (const code of ['validation_error', 'quota_exceeded', 'conflict', 'internal_error'] as const) {
      engine.failNext(new SvcError(code, `because ${code}`));
      const error = await rejection(client.sendToPhone({ phone: '+1' }));
      expect(error.code).toBe(code);
    }
  });

  it('sendToPhone: a schema violation arrives as validation_error naming the field', async () => {
    const error = await rejection(client.sendToPhone({ phone: 5 as unknown as string }));
    expect(error).toMatchObject({ code: 'validation_error', message: 'body field "phone" must be string' });
  });

  it('any call: a refused token is unauthorized with a hint, never echoing the token', async () => {
    const secret = 'tok_wrong_secret_value';
    const bad = createHttpClient({ baseUrl, token: secret });
    const error = await rejection(bad.getWorkspace());
    expect(error).toMatchObject({ code: 'unauthorized', message: 'The API token was refused' });
    expect(error.hint).toBe('check --token or run `svc login`');
    expect(`${error.message} ${error.hint}`).not.toContain(secret);
    await bad.close();
  });

  it('any call: an unreachable server is unavailable, naming the URL and not the token', async () => {
    const probe = buildServer({ engine });
    await probe.listen({ port: 0, host: '127.0.0.1' });
    const port = (probe.server.address() as AddressInfo).port;
    await probe.close();
    const down = createHttpClient({ baseUrl: `http://127.0.0.1:${port}/api`, token: TOKEN });
    const error = await rejection(down.listChats());
    expect(error.code).toBe('unavailable');
    expect(error.message).toBe(`Cannot reach http://127.0.0.1:${port}/api (ECONNREFUSED)`);
    expect(error.hint).toContain(`http://127.0.0.1:${port}/api`);
    expect(`${error.message} ${error.hint}`).not.toContain(TOKEN);
    await down.close();
  });

  it('any call: a base URL that is not an svc /api base gives a not_found that says so', async () => {
    const wrong = createHttpClient({ baseUrl: baseUrl.replace(/\/api$/, '/v2'), token: TOKEN });
    const error = await rejection(wrong.listChats());
    expect(error.code).toBe('not_found');
    await wrong.close();
  });

  it('any call: credentials in the base URL are kept out of messages', async () => {
    const withUser = createHttpClient({ baseUrl: baseUrl.replace('http://', 'http://user:pw@'), token: TOKEN });
    expect(withUser.target).toBe(baseUrl);
    await withUser.close();
  });
});

describe('http client against a rate-limited server', () => {
  it('any call: 429 arrives as rate_limit_exceeded with a retry hint', async () => {
    const app = buildServer({ engine: createFakeEngine(), rateLimitPerMinute: 1 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const client = createHttpClient({ baseUrl: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api`, token: TOKEN });
    await client.getWorkspace();
    const error = await rejection(client.getWorkspace());
    expect(error.code).toBe('rate_limit_exceeded');
    expect(error.hint).toMatch(/^retry in \d+ s$/);
    await client.close();
    await app.close();
  });
});
