/** Version 5 on PostgreSQL: the owner-notification mailer's state, and partners' e-mail addresses. */
export const OWNER_MAIL_SCHEMA_PG = `
ALTER TABLE partners ADD COLUMN email TEXT;

ALTER TABLE owner_notifications ADD COLUMN mail_status TEXT NOT NULL DEFAULT 'pending'
  CHECK (mail_status IN ('pending', 'sent', 'skipped'));
ALTER TABLE owner_notifications ADD COLUMN mail_attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE owner_notifications ADD COLUMN mail_next_at BIGINT;
ALTER TABLE owner_notifications ADD COLUMN mail_lease_owner TEXT;
ALTER TABLE owner_notifications ADD COLUMN mail_lease_until BIGINT;
ALTER TABLE owner_notifications ADD COLUMN mail_error TEXT;

CREATE INDEX owner_notifications_mail_pending ON owner_notifications (mail_next_at, id) WHERE mail_status = 'pending';
`;
