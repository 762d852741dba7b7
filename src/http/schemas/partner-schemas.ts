/**
 * JSON Schemas of the Partner API (`/partner`): inputs, outputs and its own response map, in which a 401
 * carries an error body naming the refused JWT rule (unlike the Public API's bodiless 401).
 */
import { envelope, errorBodySchema, type JsonSchema } from './common-schemas.js';

const id = { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER } as const;
const time = { type: 'string', format: 'date-time' } as const;

/** The 401 body: the usual error body plus `rule`, the docs/api-behaviour.md rule that failed. */
export const partnerAuthErrorSchema = {
  ...errorBodySchema,
  title: 'PartnerAuthError',
  required: [...errorBodySchema.required, 'rule'],
  properties: { ...errorBodySchema.properties, rule: { type: 'string' } },
} as const;

/** Response map of a partner route: `status` (200 or 201) carries the envelope. */
export const partnerResponses = (data: JsonSchema, status = 200): Record<string, JsonSchema> => ({
  [status]: envelope(data),
  401: partnerAuthErrorSchema,
  '4xx': errorBodySchema,
  '5xx': errorBodySchema,
});

export const workspaceParams = { type: 'object', required: ['id'], properties: { id } } as const;
export const userParams = { type: 'object', required: ['id', 'user_id'], properties: { id, user_id: id } } as const;
export interface WorkspaceParams {
  id: number;
}
export interface UserParams {
  id: number;
  user_id: number;
}

const displayName = { type: 'string', minLength: 1, maxLength: 200 } as const;
const seats = { type: 'integer', minimum: 0, maximum: 100_000 } as const;

export const workspaceCreateBody = {
  type: 'object',
  required: ['display_name', 'seats_purchased'],
  properties: { display_name: displayName, seats_purchased: seats },
} as const;

export const workspaceUpdateBody = {
  type: 'object',
  minProperties: 1,
  properties: { display_name: displayName, seats_purchased: seats },
} as const;

export const usersCreateBody = {
  type: 'object',
  required: ['count'],
  properties: { count: { type: 'integer', minimum: 1, maximum: 1000 } },
} as const;

export const qrCreateBody = {
  type: ['object', 'null'],
  properties: { expires_in_hours: { type: 'integer', minimum: 1, maximum: 168, default: 24 } },
} as const;

export const partnerSchema = {
  type: 'object',
  title: 'Partner',
  required: ['partner_id', 'name', 'created_at'],
  properties: { partner_id: { type: 'string' }, name: { type: 'string' }, created_at: time },
} as const;

export const partnerWorkspaceSchema = {
  type: 'object',
  title: 'PartnerWorkspace',
  required: ['workspace_id', 'display_name', 'seats_purchased', 'seats_used', 'messaging_quota', 'created_at'],
  properties: {
    workspace_id: { type: 'integer' },
    display_name: { type: 'string' },
    seats_purchased: { type: 'integer' },
    seats_used: { type: 'integer' },
    messaging_quota: {
      type: 'object',
      title: 'PartnerMessagingQuota',
      properties: {
        total: { type: 'integer' },
        used: { type: 'integer' },
        remaining: { type: 'integer' },
        period_start: time,
        period_end: time,
      },
    },
    created_at: time,
  },
} as const;

export const partnerUserSchema = {
  type: 'object',
  title: 'PartnerUser',
  required: ['user_id', 'workspace_id', 'name', 'messenger_account', 'created_at'],
  properties: {
    user_id: { type: 'integer' },
    workspace_id: { type: 'integer' },
    name: { type: 'string' },
    messenger_account: {
      type: ['object', 'null'],
      title: 'PartnerUserAccount',
      properties: {
        phone: { type: 'string' },
        status: { type: 'string', enum: ['connected', 'disconnected', 'suspended'] },
        connected_at: { type: ['string', 'null'], format: 'date-time' },
      },
    },
    created_at: time,
  },
} as const;

export const qrLinkSchema = {
  type: 'object',
  title: 'QrLink',
  required: ['user_id', 'qr_link', 'expires_at'],
  properties: { user_id: { type: 'integer' }, qr_link: { type: 'string', format: 'uri' }, expires_at: time },
} as const;

export const disconnectSchema = {
  type: 'object',
  title: 'DisconnectResult',
  required: ['disconnected', 'disconnected_at', 'phone'],
  properties: {
    disconnected: { type: 'boolean' },
    disconnected_at: { type: ['string', 'null'], format: 'date-time' },
    phone: { type: ['string', 'null'] },
  },
} as const;

export const apiTokenSchema = {
  type: 'object',
  title: 'ApiToken',
  required: ['workspace_id', 'token', 'api_token', 'created_at'],
  properties: {
    workspace_id: { type: 'integer' },
    token: { type: 'string', description: 'The Public API token (the same name as in `svc admin workspace create`)' },
    api_token: { type: 'string', deprecated: true, description: 'Deprecated: the same value as `token`' },
    created_at: time,
  },
} as const;
