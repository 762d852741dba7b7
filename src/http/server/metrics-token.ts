/**
 * The optional bearer token of GET /metrics (`svc serve --metrics-token`, SVC_METRICS_TOKEN). It is compared
 * in constant time: both sides are hashed first, so neither the content nor the length of the expected token
 * shows in how long a refusal takes.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { onRequestHookHandler } from 'fastify';
import { SvcError } from '../../wire/errors.js';
import { bearerToken } from '../routes/public/token-auth.js';

const digest = (value: string): Buffer => createHash('sha256').update(value, 'utf8').digest();

/** An onRequest hook refusing, with 401 and `WWW-Authenticate: Bearer`, a request without `Bearer <expected>`. */
export function requireMetricsToken(expected: string): onRequestHookHandler {
  const expectedDigest = digest(expected);
  return (request, reply, done) => {
    const given = bearerToken(request.headers.authorization);
    if (given !== null && timingSafeEqual(digest(given), expectedDigest)) return done();
    reply.header('www-authenticate', 'Bearer realm="metrics"');
    done(new SvcError('unauthorized', 'The metrics token is missing or invalid'));
  };
}
