import type { MigrationSource } from './migration.js';

/**
 * Version 16, PostgreSQL only: drops the foreign keys of the rows every send writes that point at rows svc
 * never deletes: `messages.workspace_id`, `messages.messenger_account_id`, `credit_ledger.workspace_id` and
 * `credit_ledger.message_id`. PostgreSQL checks a foreign key with a trigger per inserted row (a lookup of
 * the parent row and a KEY SHARE lock on it): these four were a third of the send flush's execution (1.3 of
 * 3.6 ms for 30 sends) and a quarter of the backends' CPU per send. What they guarded holds otherwise: a
 * workspace, an account or a message is never deleted; the send flush's debit must find every workspace of
 * its batch (`svc_assert`, migration 15), its ledger rows take the ids its own INSERT returned, and an account
 * id is one the transaction read. SQLite keeps them (a check there costs no measurable time), so every storage
 * test, which runs on both stores, still fails for a write that would break one. `messages.chat_id` stays on
 * both: chats are deleted (`removeUnusedChats`).
 */
export const SEND_PATH_FOREIGN_KEYS: MigrationSource = {
  version: 16,
  name: 'send-path-foreign-keys',
  sql: {
    sqlite: `
-- Nothing on SQLite: its foreign keys stay (test/store/catalog-parity.test.ts lists the difference).
`,
    postgres: `
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_workspace_id_fkey,
  DROP CONSTRAINT IF EXISTS messages_messenger_account_id_fkey;
ALTER TABLE credit_ledger DROP CONSTRAINT IF EXISTS credit_ledger_workspace_id_fkey,
  DROP CONSTRAINT IF EXISTS credit_ledger_message_id_fkey;
`,
  },
};
