/**
 * The JSON body parser: Fastify's own (prototype-poisoning refused), behind three checks it does not make.
 * Bytes that are not UTF-8 and `\ud800`-style lone surrogates would otherwise be replaced by U+FFFD or
 * stored as text no other system can encode; a sender that produces them has a bug it should hear about.
 * A NUL character (`\u0000`) is refused here too, naming its field; the store refuses it again for callers
 * that do not come through HTTP (src/wire/nul-text.ts).
 */
import type { FastifyInstance } from 'fastify';
import { SvcError } from '../../wire/errors.js';
import { nulRefused, pathOfNul } from '../../wire/nul-text.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });
// With the u flag a surrogate pair is one code point, so this matches only a surrogate standing alone.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export function useStrictJsonParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      text = utf8.decode(body as Buffer);
    } catch {
      done(new SvcError('validation_error', 'Request body is not valid UTF-8'), undefined);
      return;
    }
    // Fastify's default parser answers through the callback; its type also allows a promise, which it never returns.
    void parseJson(request, text, (error, value) => {
      if (error !== null) return done(error, undefined);
      if (!wellFormed(value)) {
        return done(new SvcError('validation_error', 'Request body holds a lone UTF-16 surrogate (e.g. "\\ud800"); send valid Unicode text'), undefined);
      }
      const nulAt = pathOfNul(value);
      if (nulAt !== undefined) return done(nulRefused(nulAt === '' ? 'the body' : `body field "${nulAt}"`), undefined);
      done(null, value);
    });
  });
}

function wellFormed(value: unknown): boolean {
  if (typeof value === 'string') return !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, item]) => !LONE_SURROGATE.test(key) && wellFormed(item));
  }
  return true;
}
