/** Wire shapes of the Partner API (docs/api-behaviour.md); the engine returns exactly these. */

/** What `svc admin partner create` hands out, once. */
export interface CreatedPartner {
  partner_id: string;
  partner_secret: string;
  name: string;
}

/** The authenticated partner (`GET /partner/me`), never with its secret. */
export interface PartnerDto {
  partner_id: string;
  name: string;
  created_at: string;
}

export interface PartnerWorkspaceCreateInput {
  display_name: string;
  seats_purchased: number;
}

/** Partial: only supplied fields change. */
export interface PartnerWorkspaceUpdateInput {
  display_name?: string;
  seats_purchased?: number;
}

export interface PartnerWorkspaceDto {
  workspace_id: number;
  display_name: string;
  seats_purchased: number;
  seats_used: number;
  messaging_quota: { total: number; used: number; remaining: number; period_start: string; period_end: string };
  created_at: string;
}

export interface PartnerUsersCreateInput {
  count: number;
}

/** The messenger account a user connected through a QR link, if any. */
export interface PartnerUserAccountDto {
  phone: string;
  status: 'connected' | 'disconnected' | 'suspended';
  connected_at: string | null;
}

export interface PartnerUserDto {
  user_id: number;
  workspace_id: number;
  name: string;
  messenger_account: PartnerUserAccountDto | null;
  created_at: string;
}

export interface QrLinkCreateInput {
  /** 1..168, default 24. */
  expires_in_hours?: number;
}

export interface QrLinkDto {
  user_id: number;
  qr_link: string;
  expires_at: string;
}

export interface DisconnectResult {
  disconnected: boolean;
  disconnected_at: string | null;
  phone: string | null;
}

/** A workspace's Public API token: `token`, the name `svc admin workspace create` uses too. */
export interface ApiTokenDto {
  workspace_id: number;
  token: string;
  /** @deprecated the same value as `token`, kept for clients written before the rename. */
  api_token: string;
  created_at: string;
}

/** `svc sim scan`: the simulated phone scans a QR link (or the pairing payload shown on its page). */
export interface SimScanInput {
  qr_link?: string;
  payload?: string;
  phone: string;
}

export interface SimScanResult {
  phone: string;
  status: 'connected';
  workspace_id: number;
  user_id: number;
}
