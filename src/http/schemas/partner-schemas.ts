/**
 * Route schemas of the Partner API (`/partner`) beyond the wire shapes: its path parameters, the optional QR
 * body, and its own response map, in which a 401 carries an error body naming the refused JWT rule (unlike
 * the Public API's bodiless 401).
 */
import { QrLinkCreateInput } from '../../wire/partner-types.js';
import { Nullable, Type } from '../../wire/schema.js';
import { type JsonSchema, type RouteSchema, envelope, errorBodySchema } from './common-schemas.js';

const id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** The 401 body: the usual error body plus `rule`, the docs/api-behaviour.md rule that failed. */
export const partnerAuthErrorSchema = {
  ...errorBodySchema,
  title: 'PartnerAuthError',
  required: [...errorBodySchema.required, 'rule'],
  properties: { ...errorBodySchema.properties, rule: { type: 'string' } },
} as const;

/** Response map of a partner route: `status` (200 or 201) carries the envelope. */
export const partnerResponses = (data: RouteSchema, status = 200): Record<string, JsonSchema> => ({
  [status]: envelope(data),
  401: partnerAuthErrorSchema,
  '4xx': errorBodySchema,
  '5xx': errorBodySchema,
});

export const workspaceParams = Type.Object({ id });
export const userParams = Type.Object({ id, user_id: id });

/** `POST .../qr` takes its body or none (`null`). */
export const qrCreateBody = Nullable(QrLinkCreateInput);
