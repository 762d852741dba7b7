import { EVENT_TYPES } from '../wire/webhook-events.js';

/**
 * Names of the rows a write transaction keeps in its `memo` (`readOnce` in context.ts): the writes of one group
 * commit read them under these names, and the batch preludes (`batch-preludes.ts`) fill them in ahead.
 */
export const memoKeys = {
  /** The workspace row, locked (`FOR NO KEY UPDATE` on PostgreSQL) by this transaction. */
  workspaceLock: (workspaceId: number) => `workspace-lock:${workspaceId}`,
  defaultSender: (workspaceId: number) => `default-sender:${workspaceId}`,
  accountByPhone: (phone: string) => `account-by-phone:${phone}`,
  chat: (accountId: number, contactPhone: string) => `chat:${accountId}:${contactPhone}`,
  /** Set by a prelude that looked for the chat of this account and contact and found none (it may exist since). */
  noChat: (accountId: number, contactPhone: string) => `no-chat:${accountId}:${contactPhone}`,
  /** `{ yes }`: whether some enabled subscription of the workspace names the event. */
  wants: (workspaceId: number, eventType: string) => `wants:${workspaceId}:${eventType}`,
};

/**
 * Notes in `memo` which events workspace `workspaceId` subscribes to (`subscribed`, as a statement that read
 * them along with its rows found), so the events the transaction emits need no probe of their own.
 */
export function noteSubscribedEvents(memo: Map<string, unknown> | undefined, workspaceId: number, subscribed: readonly string[]): void {
  for (const type of EVENT_TYPES) memo?.set(memoKeys.wants(workspaceId, type), { yes: subscribed.includes(type) });
}
