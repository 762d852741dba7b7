import type { MigrationSource } from './migration.js';

/**
 * Version 18: the debit of a message found by index. Restoring a failed send's credits reads when it was
 * debited (`DEBITED_AT`, src/store/workspace-store.ts), and the ledger had no index on `message_id` for debits
 * (only the one-restore-per-message index): each failed send read the whole ledger, which holds a row for every
 * message ever sent, inside the completion's write transaction (on SQLite, holding the one write lock). Partial,
 * like the restore's: the ledger's other rows (resets, quota changes) are never looked up by message. It carries
 * `created_at`, the one column the read wants, so the read stays in the index. Building it reads the ledger once.
 */
export const CREDIT_LEDGER_DEBIT_INDEX: MigrationSource = {
  version: 18,
  name: 'credit-ledger-debit-index',
  sql: `CREATE INDEX credit_ledger_message_debit ON credit_ledger (message_id, created_at) WHERE reason = 'debit';`,
};
