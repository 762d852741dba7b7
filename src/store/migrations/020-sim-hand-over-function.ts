import type { MigrationSource } from './migration.js';

/**
 * The sim network's hand-over of a run of messages (src/store/sim-store.ts) on PostgreSQL: each one's earlier
 * delivery and whether its number is unreachable in the sender's workspace, read from the statement's snapshot,
 * and the new ones recorded in order (a copy recorded meanwhile by another process is left alone). Every row is
 * reached by its key (the delivery by message uid, the account by phone, the number by its workspace key).
 * Exported for the plan test; written out here, not built from the store's constant, since a released migration
 * never changes.
 */
export const SIM_HAND_OVER_QUERY = `WITH judged AS (
     SELECT r.ord, r.uid, r.network_id,
       (SELECT d.network_message_id FROM sim_deliveries d WHERE d.message_uid = r.uid) AS earlier,
       EXISTS (SELECT 1 FROM messenger_accounts a
               JOIN sim_numbers n ON n.phone = CAST(a.workspace_id AS TEXT) || ':' || r.phone
               WHERE a.phone = r.account_phone AND n.unreachable = 1) AS unreachable,
       r.at
     FROM unnest(p_uids, p_network_ids, p_phones, p_account_phones, p_ats)
       WITH ORDINALITY AS r(uid, network_id, phone, account_phone, at, ord)),
   recorded AS (INSERT INTO sim_deliveries (message_uid, network_message_id, delivered_at)
     SELECT uid, network_id, at FROM judged WHERE earlier IS NULL AND NOT unreachable ORDER BY ord
     ON CONFLICT DO NOTHING)
   SELECT ord, earlier, unreachable FROM judged`;

/**
 * Version 20, PostgreSQL only: that statement as a function, `svc_sim_hand_over(uids, network ids, phones, account
 * phones, times)`, whose query runs on the plan PL/pgSQL caches for each connection, generic, as migration 17's.
 * Sent as a statement of its own, PostgreSQL planned it at every call: 0.14 of its 0.19 ms under the mixed load
 * (1,994 plans in 1,985 calls). It is the dispatcher's one statement outside a transaction, so no `SET LOCAL` could
 * go with a BEGIN.
 */
export const SIM_HAND_OVER_FUNCTION: MigrationSource = {
  version: 20,
  name: 'sim-hand-over-function',
  sql: {
    sqlite: `
-- Nothing on SQLite: its hand-over is three statements a message, each planned once per prepared statement.
`,
    postgres: `
CREATE FUNCTION svc_sim_hand_over(p_uids TEXT[], p_network_ids TEXT[], p_phones TEXT[], p_account_phones TEXT[], p_ats BIGINT[])
RETURNS TABLE (run_index BIGINT, earlier_id TEXT, is_unreachable BOOLEAN)
LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY ${SIM_HAND_OVER_QUERY};
END
$fn$;
`,
  },
};
