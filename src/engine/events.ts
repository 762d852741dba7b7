/** Event identifiers the engine emits (SPEC.md 6 and DESIGN.md 4). */
export const MESSAGE_EVENTS = ['message:new', 'message:received:new', 'message:sent:new'] as const;
export const CHAT_EVENTS = ['chat:created', 'chat:received:created', 'chat:sent:created', 'chat:assigned', 'chat:unassigned'] as const;
export const ACCOUNT_EVENTS = [
  'messenger:account:connected',
  'messenger:account:disconnected',
  'messenger:account:suspended',
  'messenger:account:resumed',
] as const;

/** Partner webhook events (DESIGN.md 5); they go to the partner that owns the workspace. */
export const PARTNER_EVENTS = [
  'messenger_account:connected',
  'messenger_account:disconnected',
  'api-token:rotated',
  'workspace:quota_near_full',
  'workspace:quota_full',
  'workspace:seats_full',
] as const;

export type MessageEventType = (typeof MESSAGE_EVENTS)[number];
export type ChatEventType = (typeof CHAT_EVENTS)[number];
export type AccountEventType = (typeof ACCOUNT_EVENTS)[number];
export type PartnerEventType = (typeof PARTNER_EVENTS)[number];

/** Something that happened, by reference; the sink builds its payload inside the same transaction. */
export type DomainEvent =
  | { type: MessageEventType; workspaceId: number; messageId: number }
  | { type: ChatEventType; workspaceId: number; chatId: number }
  | { type: AccountEventType; workspaceId: number; accountId: number }
  | { type: PartnerEventType; partnerId: number; workspaceId: number; data: Record<string, unknown> };

/**
 * Receives every domain event inside the write transaction that caused it, so an outbox written here
 * commits or rolls back with the change itself.
 */
export interface EventSink {
  emit(event: DomainEvent): void;
}

export const ignoreEvents: EventSink = { emit: () => undefined };
