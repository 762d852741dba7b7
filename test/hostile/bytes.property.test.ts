import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server/build-server.js';
import { STORES, storeTestEngine } from '../support/store-engine.js';
import { RUNS, expectCleanRefusal } from '../support/hostile-input.js';

const BOUNDARY = 'svcBoundary7MA4YWxk';
const wholeUpload = (content: Buffer): Buffer =>
  Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    content,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);

/** Byte sequences that are not UTF-8: stray continuation bytes, overlong forms, encoded surrogates, cut-off sequences. */
const invalidUtf8 = fc.oneof(
  fc.constantFrom([0x80], [0xbf], [0xc0, 0xaf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xff]),
  fc.uint8Array({ minLength: 1, maxLength: 8 }).map((bytes) => [0xc3, ...bytes.filter((b) => b < 0x80 || b > 0xbf).slice(0, 1)]).filter((b) => b.length === 2 || b[1] === undefined),
);

// Run on both stores: the same hostile input must get the same clean answer from either.
for (const store of STORES) {
  describe(`hostile input: bytes on ${store}`, () => {
    let app: FastifyInstance;
    let token: string;
    let t: Awaited<ReturnType<typeof storeTestEngine>>;
    const internalErrors: unknown[] = [];

    beforeAll(async () => {
      t = await storeTestEngine(store);
      token = t.local.token;
      await t.sim.connect({ phone: '+15550009999' });
      app = buildServer({ engine: t.engine, rateLimitPerMinute: 0, onInternalError: (error) => internalErrors.push(error) });
      await app.ready();
    });
    afterAll(async () => {
      await app?.close();
      await t?.drop();
      expect(internalErrors).toEqual([]);
    });

    const upload = (payload: Buffer | string, contentType = `multipart/form-data; boundary=${BOUNDARY}`) =>
      app.inject({ method: 'POST', url: '/api/files_upload', payload, headers: { authorization: `Bearer ${token}`, 'content-type': contentType } });
    const send = (payload: Buffer | string) =>
      app.inject({ method: 'POST', url: '/api/messages', payload, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });

    // Up to the closing delimiter: past it, only its "--" marker is missing and the part is whole.
    it('multipart cut off at any byte before the closing delimiter is a 400, never a 500', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.double({ min: 0, max: 1, noNaN: true }), async (content, at) => {
          const whole = wholeUpload(Buffer.from(content));
          const cut = whole.subarray(0, Math.floor(at * (whole.length - '--\r\n'.length - 1)));
          const response = await upload(cut);
          expect(response.statusCode, response.body).toBe(400);
          expectCleanRefusal(response, false);
        }),
        { numRuns: RUNS },
      );
    });

    it('multipart with no boundary, an empty body, or a wrong boundary is a 400', async () => {
      const whole = wholeUpload(Buffer.from('hello'));
      for (const response of [
        await upload(whole, 'multipart/form-data'),
        await upload(''),
        await upload(whole, 'multipart/form-data; boundary=notTheOneUsed'),
        await upload(Buffer.from('garbage without any structure')),
      ]) {
        expect(response.statusCode, response.body).toBe(400);
        expectCleanRefusal(response, false);
      }
      expect((await upload(whole)).statusCode).toBe(200);
    });

    it('JSON with bytes that are not UTF-8, anywhere in a string, is a 400 and nothing is sent', async () => {
      await fc.assert(
        fc.asyncProperty(invalidUtf8, fc.string({ maxLength: 20 }), async (bad, prefix) => {
          const body = Buffer.concat([Buffer.from(`{"phone":"+15550001234","text":${JSON.stringify(prefix).slice(0, -1)}`), Buffer.from(bad), Buffer.from('"}')]);
          const response = await send(body);
          expect(response.statusCode, response.body).toBe(400);
          expect(response.json()).toMatchObject({ error_code: 'validation_error', message: 'Request body is not valid UTF-8' });
        }),
        { numRuns: RUNS },
      );
    });

    it('JSON with a lone surrogate escape, in a value or a key, is a 400; a proper pair is accepted', async () => {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0xd800, max: 0xdfff }), fc.boolean(), async (unit, inKey) => {
          const escape = `\\u${unit.toString(16)}`;
          const body = inKey ? `{"phone":"+15550001234","text":"hi","x${escape}":1}` : `{"phone":"+15550001234","text":"a${escape}b"}`;
          const response = await send(body);
          expect(response.statusCode, response.body).toBe(400);
          expect(response.json()).toMatchObject({ error_code: 'validation_error' });
        }),
        { numRuns: RUNS },
      );
      const paired = await send('{"phone":"+15550001234","text":"emoji \\ud83d\\ude00 ok"}');
      expect(paired.statusCode, paired.body).toBe(200);
    });

    it('JSON with a NUL character (\\u0000), in a value or a key, is a 400 naming the field', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ maxLength: 10 }), fc.boolean(), async (around, inKey) => {
          const body = inKey ? `{"phone":"+15550001234","text":"hi","x${'\\u0000'}":1}` : `{"phone":"+15550001234","text":${JSON.stringify(`${around}\u0000${around}`)}}`;
          const response = await send(body);
          expect(response.statusCode, response.body).toBe(400);
          expect(response.json()).toMatchObject({ error_code: 'validation_error', message: inKey ? 'body field "x\\u0000" must not contain the NUL character (U+0000)' : 'body field "text" must not contain the NUL character (U+0000)' });
        }),
        { numRuns: RUNS },
      );
    });

    it('well-formed multi-byte UTF-8 text is accepted byte for byte', async () => {
      await fc.assert(
        fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), async (text) => {
          fc.pre(text.trim() !== '');
          const response = await send(Buffer.from(JSON.stringify({ phone: '+15550001234', text }), 'utf8'));
          expect(response.statusCode, response.body).toBe(200);
        }),
        { numRuns: 20 },
      );
    });
  });
}
