/** Event identifiers the engine emits (SPEC.md 6 and DESIGN.md 4); workspace events are the webhook payload's own. */
import type { AccountEventType, ChatEventType, MessageEventType } from '../webhooks/payload.js';

/** Partner webhook events (DESIGN.md 5); they go to the partner that owns the workspace. */
export const PARTNER_EVENTS = [
  'messenger_account:connected',
  'messenger_account:disconnected',
  'api-token:rotated',
  'workspace:quota_near_full',
  'workspace:quota_full',
  'workspace:seats_full',
] as const;

export type PartnerEventType = (typeof PARTNER_EVENTS)[number];

/** Something that happened, by reference; the sink builds its payload inside the same transaction. */
export type DomainEvent =
  | { type: MessageEventType; workspaceId: number; messageId: number }
  | { type: ChatEventType; workspaceId: number; chatId: number }
  | { type: AccountEventType; workspaceId: number; accountId: number }
  | { type: PartnerEventType; partnerId: number; workspaceId: number; data: Record<string, unknown> };
