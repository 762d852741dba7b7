/**
 * One line per request on the server's stderr: method, path, status, duration. Paths are redacted first
 * (download signatures, tokens in a query, QR connection codes) and headers and bodies are never logged.
 * Each line goes to `write` as it is made; batching belongs to the writer (svc serve's `fdLineWriter` joins
 * whatever arrives while a write is under way).
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
  app.addHook('onResponse', (request, reply, done) => {
    const path = redactUrl(request.url);
    const ms = Math.round(reply.elapsedTime * 10) / 10;
    const time = now().toISOString();
    const line =
      options.format === 'json'
        ? JSON.stringify({ time, method: request.method, path, status: reply.statusCode, ms })
        : `${time} ${request.method} ${path} ${reply.statusCode} ${ms}ms`;
    options.write(`${line}\n`);
    done();
  });
}
