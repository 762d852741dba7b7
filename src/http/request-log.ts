/**
 * One line per request on the server's stderr: method, path, status, duration. Paths are redacted first
 * (download signatures, tokens in a query, QR connection codes) and headers and bodies are never logged.
 * Lines are gathered and written once per event-loop turn, so a busy server makes one write, not thousands.
 */
import type { FastifyInstance } from 'fastify';
import { redactUrl } from './redact-url.js';

export type RequestLogFormat = 'text' | 'json';

export interface RequestLogOptions {
  format: RequestLogFormat;
  write: (chunk: string) => void;
  now?: () => Date;
}

export function useRequestLog(app: FastifyInstance, options: RequestLogOptions): void {
  const now = options.now ?? (() => new Date());
  let pending: string[] = [];
  const flush = () => {
    const lines = pending;
    pending = [];
    options.write(lines.join(''));
  };
  app.addHook('onResponse', (request, reply, done) => {
    const path = redactUrl(request.url);
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const time = now().toISOString();
    const line =
      options.format === 'json'
        ? JSON.stringify({ time, method: request.method, path, status: reply.statusCode, ms })
        : `${time} ${request.method} ${path} ${reply.statusCode} ${ms}ms`;
    if (pending.length === 0) setImmediate(flush);
    pending.push(`${line}\n`);
    done();
  });
  // Whatever is still gathered when the server closes is written, not dropped.
  app.addHook('onClose', (_app, done) => {
    if (pending.length > 0) flush();
    done();
  });
}
