/**
 * Route schemas of the Partner API (`/partner`) beyond the wire shapes: its path parameters, the optional QR
 * body, and its own response map, in which a 401 carries an error body naming the refused JWT rule (unlike
 * the Public API's bodiless 401).
 */
import { QrLinkCreateInput } from '../../wire/partner-types.js';
import { Nullable, type TSchema, Type } from '../../wire/schema.js';
import { envelope, errorBodySchema } from './common-schemas.js';

const id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** The 401 body: the usual error body plus `rule`, the docs/api-behaviour.md rule that failed. */
export const partnerAuthErrorSchema = Type.Object(
  { ...errorBodySchema.properties, rule: Type.String() },
  { description: 'Error body', title: 'PartnerAuthError' },
);

/** Response map of a partner route: the envelope on 200. */
export const partnerResponses = <T extends TSchema>(data: T) => ({
  200: envelope(data),
  401: partnerAuthErrorSchema,
  '4xx': errorBodySchema,
  '5xx': errorBodySchema,
});

/** Response map of a partner route that creates: the envelope on 201. */
export const partnerCreatedResponses = <T extends TSchema>(data: T) => ({
  201: envelope(data),
  401: partnerAuthErrorSchema,
  '4xx': errorBodySchema,
  '5xx': errorBodySchema,
});

export const workspaceParams = Type.Object({ id });
export const userParams = Type.Object({ id, user_id: id });

/** `POST .../qr` takes its body or none (`null`). */
export const qrCreateBody = Nullable(QrLinkCreateInput);
