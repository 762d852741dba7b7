import type { MigrationSource } from './migration.js';

/**
 * Version 5: e-mailing owner notifications. Each notification gets a mail state with a lease (several
 * processes may run the mailer on one database file, and none may mail a row twice), a retry schedule for
 * an SMTP server that is down, and partners get an optional e-mail address to be notified at.
 */
export const OWNER_MAIL: MigrationSource = {
  version: 5,
  name: 'owner-mail',
  sql: `
ALTER TABLE partners ADD COLUMN email TEXT;

-- pending: to be mailed once SMTP is configured; sent: emailed_at says when; skipped: nobody to mail
-- (no owner address) or too old to be worth mailing, with the reason in mail_error.
ALTER TABLE owner_notifications ADD COLUMN mail_status TEXT NOT NULL DEFAULT 'pending'
  CHECK (mail_status IN ('pending', 'sent', 'skipped'));
ALTER TABLE owner_notifications ADD COLUMN mail_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE owner_notifications ADD COLUMN mail_next_at BIGINT;
ALTER TABLE owner_notifications ADD COLUMN mail_lease_owner TEXT;
ALTER TABLE owner_notifications ADD COLUMN mail_lease_until BIGINT;
ALTER TABLE owner_notifications ADD COLUMN mail_error TEXT;

-- The mailer's claim reads only rows still to be mailed, oldest first.
CREATE INDEX owner_notifications_mail_pending ON owner_notifications (mail_next_at, id) WHERE mail_status = 'pending';
`,
};
