import type { MigrationSource } from './migration.js';

/**
 * The read of the rows an event's webhook body is built from (src/store/message-event-view.ts), on PostgreSQL:
 * the messages asked for, each with its chat, account, file, reply and reactions, and the chats asked for, each
 * with its account, as JSON. Each related row is a sub-select of its own, so every one is an index lookup by key
 * whatever the plan (as one join of nine relations it took 1.9 ms to plan, then ran a generic plan that hashed a
 * scan of the whole chats table). Exported for the plan test; written out here, not built from the stores'
 * constants, since a released migration never changes.
 */
export const EVENT_VIEWS_QUERY = `SELECT
  (SELECT json_agg(v) FROM (
     SELECT row_to_json(m) AS message,
       (SELECT to_jsonb(c) || jsonb_build_object('account_phone', a.phone) FROM chats c
          JOIN messenger_accounts a ON a.id = c.messenger_account_id
         WHERE c.id = m.chat_id AND c.workspace_id = m.workspace_id) AS chat,
       (SELECT row_to_json(a) FROM messenger_accounts a WHERE a.id = m.messenger_account_id) AS account,
       (SELECT row_to_json(f) FROM (SELECT id, uid, workspace_id, filename, mimetype, size, created_at
          FROM files WHERE id = m.file_id) f) AS file,
       (SELECT r.uid FROM messages r WHERE r.id = m.reply_to_id) AS reply_to_uid,
       (SELECT json_object_agg(x.emoji, x.count ORDER BY x.emoji) FROM reactions x
         WHERE x.message_id = m.id) AS reactions
     FROM messages m WHERE m.id = ANY(p_message_ids)) v),
  (SELECT json_agg(v) FROM (
     SELECT to_jsonb(c) || jsonb_build_object('account_phone', a.phone) AS chat, row_to_json(a) AS account
     FROM chats c JOIN messenger_accounts a ON a.id = c.messenger_account_id
     WHERE c.id = ANY(p_chat_ids)) v)`;

/**
 * Version 17, PostgreSQL only: that read as a function, `svc_event_views(message ids, chat ids)`, whose query runs
 * on the plan PL/pgSQL caches for each connection, generic. Sent as a statement of its own, PostgreSQL planned
 * it at every call (the plan for the ids given always looks cheaper than the generic one): 0.34 of its 0.46 ms
 * under the mixed load. Run from the function: 0.07-0.09 ms of the backend's CPU a call, against 0.28-0.32
 * (2,000 calls, two messages each). `SET LOCAL plan_cache_mode` around the statement saved as much, but its two
 * statements cost the replica what they saved the database (bench/README.md, 2026-11-29).
 */
export const EVENT_VIEWS_FUNCTION: MigrationSource = {
  version: 17,
  name: 'event-views-function',
  sql: {
    sqlite: `
-- Nothing on SQLite: its reads are function calls, planned once per prepared statement.
`,
    postgres: `
CREATE FUNCTION svc_event_views(p_message_ids BIGINT[], p_chat_ids BIGINT[])
RETURNS TABLE (message_views JSON, chat_views JSON)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY ${EVENT_VIEWS_QUERY};
END
$fn$;
`,
  },
};
