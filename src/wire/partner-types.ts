/**
 * Wire shapes of the Partner API (docs/api-behaviour.md); the engine returns exactly these. Each is one
 * schema, which the `/partner` routes validate, serialise and document with, and its derived type.
 */
import { ACCOUNT_STATUSES } from './types.js';
import { DateTime, Nullable, type Static, StringEnum, Type } from './schema.js';

/** What `svc admin partner create` hands out, once (local engine only). */
export interface CreatedPartner {
  partner_id: string;
  partner_secret: string;
  name: string;
}

/** The authenticated partner (`GET /partner/me`), never with its secret. */
export const PartnerDto = Type.Object({ partner_id: Type.String(), name: Type.String(), created_at: DateTime() }, { title: 'Partner' });
export type PartnerDto = Static<typeof PartnerDto>;

const displayName = Type.String({ minLength: 1, maxLength: 200 });
const seats = Type.Integer({ minimum: 0, maximum: 100_000 });

export const PartnerWorkspaceCreateInput = Type.Object({ display_name: displayName, seats_purchased: seats });
export type PartnerWorkspaceCreateInput = Static<typeof PartnerWorkspaceCreateInput>;

/** Partial: only supplied fields change (at least one). */
export const PartnerWorkspaceUpdateInput = Type.Object(
  { display_name: Type.Optional(displayName), seats_purchased: Type.Optional(seats) },
  { minProperties: 1 },
);
export type PartnerWorkspaceUpdateInput = Static<typeof PartnerWorkspaceUpdateInput>;

export const PartnerWorkspaceDto = Type.Object(
  {
    workspace_id: Type.Integer(),
    display_name: Type.String(),
    seats_purchased: Type.Integer(),
    seats_used: Type.Integer(),
    messaging_quota: Type.Object(
      { total: Type.Integer(), used: Type.Integer(), remaining: Type.Integer(), period_start: DateTime(), period_end: DateTime() },
      { title: 'PartnerMessagingQuota' },
    ),
    created_at: DateTime(),
  },
  { title: 'PartnerWorkspace' },
);
export type PartnerWorkspaceDto = Static<typeof PartnerWorkspaceDto>;

export const PartnerUsersCreateInput = Type.Object({ count: Type.Integer({ minimum: 1, maximum: 1000 }) });
export type PartnerUsersCreateInput = Static<typeof PartnerUsersCreateInput>;

/** The messenger account a user connected through a QR link, if any. */
export const PartnerUserAccountDto = Type.Object(
  { phone: Type.String(), status: StringEnum(ACCOUNT_STATUSES), connected_at: Nullable(DateTime()) },
  { title: 'PartnerUserAccount' },
);
export type PartnerUserAccountDto = Static<typeof PartnerUserAccountDto>;

export const PartnerUserDto = Type.Object(
  {
    user_id: Type.Integer(),
    workspace_id: Type.Integer(),
    name: Type.String(),
    messenger_account: Nullable(PartnerUserAccountDto),
    created_at: DateTime(),
  },
  { title: 'PartnerUser' },
);
export type PartnerUserDto = Static<typeof PartnerUserDto>;

/** `POST .../qr`; the body may be left out (`null`): 24 hours. */
export const QrLinkCreateInput = Type.Object({
  expires_in_hours: Type.Optional(Type.Integer({ minimum: 1, maximum: 168, default: 24 })),
});
export type QrLinkCreateInput = Static<typeof QrLinkCreateInput>;

export const QrLinkDto = Type.Object(
  { user_id: Type.Integer(), qr_link: Type.String({ format: 'uri' }), expires_at: DateTime() },
  { title: 'QrLink' },
);
export type QrLinkDto = Static<typeof QrLinkDto>;

export const DisconnectResult = Type.Object(
  { disconnected: Type.Boolean(), disconnected_at: Nullable(DateTime()), phone: Nullable(Type.String()) },
  { title: 'DisconnectResult' },
);
export type DisconnectResult = Static<typeof DisconnectResult>;

/** A workspace's Public API token: `token`, the name `svc admin workspace create` uses too. */
export const ApiTokenDto = Type.Object(
  {
    workspace_id: Type.Integer(),
    token: Type.String({ description: 'The Public API token (the same name as in `svc admin workspace create`)' }),
    /** @deprecated the same value as `token`, kept for clients written before the rename. */
    api_token: Type.String({ deprecated: true, description: 'Deprecated: the same value as `token`' }),
    created_at: DateTime(),
  },
  { title: 'ApiToken' },
);
export type ApiTokenDto = Static<typeof ApiTokenDto>;

/** `svc sim scan`: the simulated phone scans a QR link (or the pairing payload shown on its page). */
export const SimScanInput = Type.Object({
  qr_link: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  payload: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  phone: Type.String({ minLength: 1, maxLength: 32 }),
});
export type SimScanInput = Static<typeof SimScanInput>;

export const SimScanResult = Type.Object({
  phone: Type.String(),
  status: StringEnum(['connected'] as const),
  workspace_id: Type.Integer(),
  user_id: Type.Integer(),
});
export type SimScanResult = Static<typeof SimScanResult>;
