/** Event identifiers the engine emits (SPEC.md 6 and DESIGN.md 4). */
export const MESSAGE_EVENTS = ['message:new', 'message:received:new', 'message:sent:new'] as const;
export const CHAT_EVENTS = ['chat:created', 'chat:received:created', 'chat:sent:created', 'chat:assigned', 'chat:unassigned'] as const;
export const ACCOUNT_EVENTS = [
  'messenger:account:connected',
  'messenger:account:disconnected',
  'messenger:account:suspended',
  'messenger:account:resumed',
] as const;

export type MessageEventType = (typeof MESSAGE_EVENTS)[number];
export type ChatEventType = (typeof CHAT_EVENTS)[number];
export type AccountEventType = (typeof ACCOUNT_EVENTS)[number];

/** Something that happened, by reference; the sink builds its payload inside the same transaction. */
export type DomainEvent =
  | { type: MessageEventType; workspaceId: number; messageId: number }
  | { type: ChatEventType; workspaceId: number; chatId: number }
  | { type: AccountEventType; workspaceId: number; accountId: number };

/**
 * Receives every domain event inside the write transaction that caused it, so an outbox written here
 * commits or rolls back with the change itself.
 */
export interface EventSink {
  emit(event: DomainEvent): void;
}

export const ignoreEvents: EventSink = { emit: () => undefined };
