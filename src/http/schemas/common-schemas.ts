/**
 * Schemas shared by every route: the `{status, data}` envelope, the error body, list paging and path ids.
 * TypeBox schemas like the wire shapes of src/wire they wrap: Fastify validates and serialises with them,
 * @fastify/swagger documents them, and the type provider types each handler's input and answer from them.
 */
import { PageOf } from '../../wire/types.js';
import { type Static, StringEnum, type TSchema, Type } from '../../wire/schema.js';
import { MAX_UID_LENGTH } from '../../engine/ids.js';
import { MAX_PAGE } from '../../engine/paging.js';

/** JSON Schema as route definitions hold it. */
export type JsonSchema = Record<string, unknown>;

/** The error body of docs/api-behaviour.md plus the stable `error_code` of docs/api-behaviour.md. */
export const errorBodySchema = Type.Object(
  {
    status: StringEnum(['error'] as const),
    message: Type.String(),
    error_code: Type.String(),
    hint: Type.Optional(Type.String({ description: 'What to do next, when the service knows' })),
  },
  { description: 'Error body' },
);
export type ErrorBody = Static<typeof errorBodySchema>;

/** `{ "status": "ok", "data": <data> }`. */
export const envelope = <T extends TSchema>(data: T) => Type.Object({ status: StringEnum(['ok'] as const), data });

/** A page of a list (docs/api-behaviour.md: 50 a page, `has_more_pages`). */
export const pageOf = PageOf;

/** A 401 carries no body (docs/api-behaviour.md). */
const noBody = Type.Null({ description: 'Token missing or invalid; no body' });

/**
 * The `response` map of an authenticated route: the envelope on 200, the error body on any other 4xx/5xx.
 * Declaring the 200 schema also makes Fastify serialise with fast-json-stringify, dropping stray fields.
 */
export const responses = <T extends TSchema>(data: T) => ({
  200: envelope(data),
  401: noBody,
  '4xx': errorBodySchema,
  '5xx': errorBodySchema,
});

/** Numeric ids in paths: integers from 1 (a non-integer is a 400, not a 404). */
export const idParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

/** A uid in a path. Its format is the engine's business; here only its length is bounded. */
export const uidParams = Type.Object({ uid: Type.String({ minLength: 1, maxLength: MAX_UID_LENGTH }) });

/** A phone number in a path (`/sim/...`); whether it is one is the engine's business. */
export const phoneParams = Type.Object({ phone: Type.String({ minLength: 1, maxLength: 64 }) });

/** `?page=N`, from 1, default 1: optional for the caller, always there for the handler (the validator fills it in). */
export const pageQuery = Type.Unsafe<{ page: number }>(
  Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })) }),
);
