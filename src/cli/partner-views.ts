import type { ApiTokenDto, DisconnectResult, PartnerUserDto, PartnerWorkspaceDto } from '../wire/partner-types.js';
import type { View } from './output.js';

// How Partner API results read for a human; `--json` prints the wire objects instead.

/** A partner's workspace with its seats and quota. */
export const partnerWorkspaceView = (w: PartnerWorkspaceDto): View => ({
  kind: 'record',
  rows: [
    ['workspace_id', w.workspace_id],
    ['display_name', w.display_name],
    ['seats', `${w.seats_used} of ${w.seats_purchased} used`],
    ['quota', `${w.messaging_quota.used} of ${w.messaging_quota.total} credits used`],
    ['created_at', w.created_at],
  ],
});

/** Users of a workspace with their messenger account, if any. */
export const partnerUsersTable = (users: PartnerUserDto[]): View => ({
  kind: 'table',
  head: ['user_id', 'name', 'phone', 'status', 'connected_at'],
  rows: users.map((u) => [u.user_id, u.name, u.messenger_account?.phone, u.messenger_account?.status ?? 'not connected', u.messenger_account?.connected_at]),
  empty: 'no users',
});

/** A workspace's Public API token. */
export const apiTokenView = (t: ApiTokenDto): View => ({
  kind: 'record',
  rows: [
    ['workspace_id', t.workspace_id],
    ['token', t.token],
    ['created_at', t.created_at],
  ],
});

/** What a disconnect did, or why it did nothing. */
export const disconnectView = (r: DisconnectResult): View => ({
  kind: 'lines',
  lines: [r.disconnected ? `disconnected ${r.phone} at ${r.disconnected_at}` : `nothing to disconnect${r.phone === null ? '' : ` (${r.phone} is already disconnected)`}`],
});
