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
