import type { SqlExecutor } from './sql.js';

/**
 * The memo key of the event views a PostgreSQL transaction knows without reading them back
 * (message-event-view.ts: `knowReceived`, `knowChat`): of the messages and chats it wrote itself. A savepoint
 * rolled back clears the memo, these with it.
 */
export const KNOWN_EVENT_VIEWS = 'event-views-known';

/**
 * Forgets the views known so far: called by every write that could change one (a chat's name or assignee, an
 * account, a message's status or reactions; a file's removal leaves the row the view reads), so an event's body
 * is never older than the transaction's own writes. None of those writes runs inside a group commit, where
 * views are known; elsewhere forgetting costs nothing.
 */
export function forgetKnownViews(sql: SqlExecutor): void {
  sql.memo?.delete(KNOWN_EVENT_VIEWS);
}
