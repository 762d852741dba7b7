import fc from 'fast-check';
import { expect } from 'vitest';
import type { FastifyInstance } from 'fastify';

/** CI runs a quick sample; `npm run soak` (SVC_SOAK=full) runs the long one. */
export const RUNS = process.env.SVC_SOAK === 'full' ? 2000 : 60;

const KNOWN_FIELDS = [
  'phone', 'messenger_account_phone', 'text', 'file_uid', 'label', 'chat_name', 'attachment_template_id',
  'reply_to', 'name', 'responsible', 'event_type', 'url', 'enabled', 'display_name', 'seats_purchased',
  'count', 'expires_in_hours', 'from', 'to', 'emoji', 'message_uid', 'unreachable',
];

const deepNesting = fc.integer({ min: 50, max: 5000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth));
const hugeString = fc.integer({ min: 10_000, max: 2_000_000 }).map((n) => JSON.stringify({ text: 'x'.repeat(n) }));
const invalidUtf8 = fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) =>
  Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xfe, ...bytes]), Buffer.from('"}')]),
);
const wrongTypes = fc.dictionary(fc.constantFrom(...KNOWN_FIELDS), fc.anything({ maxDepth: 3 }), { maxKeys: 8 });
const mixedFields = fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_FIELDS), fc.string()), fc.jsonValue({ maxDepth: 4 }));
const badPhones = fc.record({
  phone: fc.oneof(fc.string(), fc.constantFrom('', '+', '++1', '+1 (555', 'abc', '+'.padEnd(400, '9'), '\u0000', '١٢٣٤٥٦٧٨')),
  text: fc.string(),
});

/** A string with NUL (U+0000) somewhere in it. */
export const withNul: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))
  .map(([before, after]) => `${before}\u0000${after}`);
/** Known fields, each a string holding NUL (plus the others a send needs, sometimes). */
export const nulFields = fc
  .tuple(fc.dictionary(fc.constantFrom(...KNOWN_FIELDS), withNul, { minKeys: 1, maxKeys: 4 }), fc.boolean())
  .map(([fields, plausible]) => ({ ...(plausible ? { phone: '+14155550123', text: 'hi', chat_name: 'Seed' } : {}), ...fields }));

/** Request bodies no well-behaved client sends: raw bytes, broken JSON, wrong types, huge and deep. */
export const hostileBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  wrongTypes.map((o) => JSON.stringify(o)),
  mixedFields.map((o) => JSON.stringify(o)),
  badPhones.map((o) => JSON.stringify(o)),
  nulFields.map((o) => JSON.stringify(o)),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string(),
  deepNesting,
  hugeString,
  invalidUtf8,
);

/** Path segments that are not the positive integers (or uids) a route expects. */
export const hostileId: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-1', '1.5', '1e3', 'NaN', 'null', '%00', '..%2F..', '99999999999999999999999', '%E0%A4%A', ' 1'),
  fc.string({ maxLength: 40 }).map((s) => encodeURIComponent(s)),
  fc.integer().map(String),
);

/** Every answer to hostile input: never 5xx; 401 with no body; any other error with the catalogue body. */
export function expectCleanRefusal(response: { statusCode: number; body: string }, allowOk = true): void {
  expect(response.statusCode, response.body).toBeLessThan(500);
  if (response.statusCode === 401) {
    expect(response.body).toBe('');
    return;
  }
  if (response.statusCode < 400) {
    expect(allowOk).toBe(true);
    return;
  }
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(body.status).toBe('error');
  expect(typeof body.message).toBe('string');
  expect(typeof body.error_code).toBe('string');
}

/** The server still answers after the barrage. */
export async function expectAlive(app: FastifyInstance): Promise<void> {
  const health = await app.inject({ method: 'GET', url: '/healthz' });
  expect(health.statusCode).toBe(200);
}
