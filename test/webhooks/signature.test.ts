import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateMessageId, generateSecret, sign, signedHeaders, verify } from '../../src/webhooks/signature.js';

const body = JSON.stringify({ event_type: 'message:new', message: { message_uid: 'm1', text: 'Grüße 👋' } });
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('signature', () => {
  it('generateSecret: whsec_ plus base64 of 24 random bytes, from the injected source', () => {
    const secret = generateSecret((n) => Buffer.alloc(n, 7));
    expect(secret).toBe(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
    expect(Buffer.from(generateSecret().slice(6), 'base64')).toHaveLength(24);
    expect(generateSecret()).not.toBe(generateSecret());
  });

  it('generateMessageId: msg_ prefix and unique', () => {
    expect(generateMessageId()).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(generateMessageId()).not.toBe(generateMessageId());
  });

  it('sign: matches the standardwebhooks reference implementation', () => {
    const secret = generateSecret();
    const timestamp = 1_700_000_000;
    const ours = sign({ secret, msgId: 'msg_1', timestamp, body });
    expect(ours).toBe(new Webhook(secret).sign('msg_1', new Date(timestamp * 1000), body));
    expect(ours).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  });

  it('signedHeaders: the standardwebhooks package verifies what we produce', () => {
    const secret = generateSecret();
    const headers = signedHeaders({ secret, msgId: 'msg_abc', timestamp: nowSeconds(), body });
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('signedHeaders: the standardwebhooks package rejects tampering', () => {
    const secret = generateSecret();
    const headers = signedHeaders({ secret, msgId: 'msg_abc', timestamp: nowSeconds(), body });
    const wh = new Webhook(secret);
    expect(() => wh.verify(body.replace('Grüße', 'Gruse'), { ...headers })).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow();
    expect(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 10) })).toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, { ...headers })).toThrow();
    const old = signedHeaders({ secret, msgId: 'msg_abc', timestamp: nowSeconds() - 600, body });
    expect(() => wh.verify(body, { ...old })).toThrow(/too old/);
  });

  it('verify: accepts our signature, case-insensitive headers, and one of several signatures', () => {
    const secret = generateSecret();
    const nowMs = 1_700_000_000_000;
    const headers = signedHeaders({ secret, msgId: 'msg_1', timestamp: nowMs / 1000, body });
    expect(verify({ secret, body, headers: { ...headers }, nowMs })).toEqual({ valid: true, msgId: 'msg_1', timestamp: nowMs / 1000 });
    const upper = { 'Webhook-Id': headers['webhook-id'], 'WEBHOOK-TIMESTAMP': headers['webhook-timestamp'], 'webhook-signature': `v1,AAAA ${headers['webhook-signature']}` };
    expect(verify({ secret, body, headers: upper, nowMs }).valid).toBe(true);
  });

  it('verify: rejects tampering, a wrong secret, missing headers and stale or future timestamps', () => {
    const secret = generateSecret();
    const nowMs = 1_700_000_000_000;
    const headers = { ...signedHeaders({ secret, msgId: 'msg_1', timestamp: nowMs / 1000, body }) };
    expect(verify({ secret, body: `${body} `, headers, nowMs })).toMatchObject({ valid: false, reason: 'no matching v1 signature' });
    expect(verify({ secret: generateSecret(), body, headers, nowMs }).valid).toBe(false);
    expect(verify({ secret, body, headers: { ...headers, 'webhook-signature': 'v2,abc' }, nowMs }).valid).toBe(false);
    expect(verify({ secret, body, headers: { 'webhook-id': 'msg_1' }, nowMs })).toMatchObject({ valid: false });
    expect(verify({ secret, body, headers, nowMs: nowMs + 301_000 })).toMatchObject({ valid: false, reason: expect.stringMatching(/300 s/) });
    expect(verify({ secret, body, headers, nowMs: nowMs - 301_000 }).valid).toBe(false);
    expect(verify({ secret, body, headers, nowMs: nowMs + 299_000 }).valid).toBe(true);
    expect(verify({ secret, body, headers: { ...headers, 'webhook-timestamp': '1e9' }, nowMs }).valid).toBe(false);
  });

  it('verify: accepts what the standardwebhooks package signs', () => {
    const secret = generateSecret();
    const timestamp = new Date(1_700_000_000_000);
    const signature = new Webhook(secret).sign('msg_x', timestamp, body);
    const headers = { 'webhook-id': 'msg_x', 'webhook-timestamp': '1700000000', 'webhook-signature': signature };
    expect(verify({ secret, body, headers, nowMs: timestamp.getTime() }).valid).toBe(true);
  });
});
