/** Event identifiers the engine emits (docs/api-behaviour.md); workspace events are the webhook payload's own. */
import type { AccountEventType, ChatEventType, MessageEventType, PartnerEventType } from '../wire/webhook-events.js';

// Partner events go to the partner that owns the workspace; their names are wire types.
export { PARTNER_EVENTS, type PartnerEventType } from '../wire/webhook-events.js';

/** Something that happened, by reference; the sink builds its payload inside the same transaction. */
export type DomainEvent =
  | { type: MessageEventType; workspaceId: number; messageId: number }
  | { type: ChatEventType; workspaceId: number; chatId: number }
  | { type: AccountEventType; workspaceId: number; accountId: number }
  | { type: PartnerEventType; partnerId: number; workspaceId: number; data: Record<string, unknown> };
