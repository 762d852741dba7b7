/**
 * The HTTP edge of the error catalogue: every failure leaves as `{status:"error", message, error_code}` with
 * the catalogue's status. Framework errors (bad JSON, oversized bodies, multipart limits) are mapped onto
 * catalogue codes here; anything unexpected becomes a generic 500 so no internals or secrets leak.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError, fromStorageError, isSvcError } from '../../wire/errors.js';
import { redactUrl } from './redact-url.js';
import type { ErrorBody } from '../schemas/common-schemas.js';


/** Called with every unexpected error (a 500), so the caller can log it. */
export type InternalErrorListener = (error: unknown, request: { method: string; url: string }) => void;

/** Builds the wire body of an SvcError. */
export const errorBody = (error: SvcError): ErrorBody => ({
  status: 'error',
  message: error.message,
  error_code: error.code,
  ...(error.hint === undefined ? {} : { hint: error.hint }),
});

// Fastify's own messages for these are written for framework users; these say what the caller should do.
const frameworkMessages: Record<string, string> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'Request body is not valid JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'Request body is empty but Content-Type is application/json; send a JSON object',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'Unsupported Content-Type; send application/json (or multipart/form-data to upload)',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'Request is not multipart/form-data',
  FST_FILES_LIMIT: 'Send exactly one file, in the multipart field "file"',
  FST_PARTS_LIMIT: 'Too many multipart parts',
  FST_FIELDS_LIMIT: 'Too many multipart fields',
};

/** Maps anything thrown while serving a request onto the catalogue; `null` means unexpected (a 500). */
export const toSvcError = (error: unknown): SvcError | null => {
  if (isSvcError(error)) return error;
  const storage = fromStorageError(error);
  if (storage !== null) return storage;
  const fastifyError = error as Partial<FastifyError> & { validation?: unknown };
  if (fastifyError === null || typeof fastifyError !== 'object') return null;
  if (fastifyError.validation !== undefined) {
    return new SvcError('validation_error', String(fastifyError.message));
  }
  const status = fastifyError.statusCode;
  if (status === 413) {
    return new SvcError('payload_too_large', 'Request body is larger than this server accepts', {
      hint: 'send a smaller body or file',
    });
  }
  if (status === 429) return new SvcError('rate_limit_exceeded', 'Too many requests; retry later');
  const known = fastifyError.code === undefined ? undefined : frameworkMessages[fastifyError.code];
  if (known !== undefined) return new SvcError('validation_error', known);
  // Any other framework 4xx is a malformed request; its message describes the request, not the server.
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new SvcError('validation_error', String(fastifyError.message ?? 'Invalid request'));
  }
  return null;
};

/** Fastify error handler for the whole server. */
export const buildErrorHandler =
  (onInternalError: InternalErrorListener | undefined) =>
  (error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const mapped = toSvcError(error);
    if (mapped !== null) {
      // An unauthorized error thrown by a route still obeys docs/api-behaviour.md: no body.
      if (mapped.code === 'unauthorized') return reply.code(401).send();
      const retryAfter = mapped.details?.['retryAfterSec'] ?? (mapped.code === 'unavailable' || mapped.code === 'insufficient_storage' ? 5 : undefined);
      if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
      return reply.code(mapped.status).send(errorBody(mapped));
    }
    request.log.error({ err: error }, 'unexpected error');
    onInternalError?.(error, { method: request.method, url: redactUrl(request.url) });
    return reply.code(500).send(errorBody(new SvcError('internal_error', 'Internal server error')));
  };
