import { hostname } from 'node:os';
import type { Transporter } from 'nodemailer';
import { inWriteTransaction, type EngineContext } from '../engine/context.js';
import type { ClaimedNotification } from '../store/owner-mail-store.js';
import { scrubSmtpSecret, type SmtpSettings } from './smtp.js';
import { renderOwnerMail, type OwnerMail } from './owner-mail-text.js';
import { processOwner } from './lease-owners.js';
import type { JobRunner } from './worker-runner.js';

/** Name of the mailer in the worker runner. */
export const OWNER_MAILER = 'owner-mail';

/** Sends one e-mail; rejects when the SMTP server does not accept it. Tests may inject one. */
export type SendMail = (mail: OwnerMail & { to: string; from: string }) => Promise<void>;

/** Tuning of the mailer; the defaults suit a server. */
export interface OwnerMailerOptions {
  send?: SendMail;
  /** Longer than any one SMTP exchange can take (see the timeouts below), so a live mailer keeps its rows. */
  leaseMs?: number;
  /** First retry delay after a failed send; doubles per failure up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Notifications older than this are skipped rather than mailed late. */
  maxAgeMs?: number;
  batch?: number;
  /** Where failures are reported (the server's log); the SMTP password is scrubbed first. */
  log?: (line: string) => void;
}

const MINUTE = 60_000;

/** Default sender: the SMTP login when it is an address (providers often insist on that), else svc@this host. */
function defaultFrom(url: string): string {
  try {
    const user = decodeURIComponent(new URL(url).username);
    if (/^[^@\s]+@[^@\s]+$/.test(user)) return user;
  } catch {
    // smtpUrlProblem rejected bad URLs before; fall through to the host name.
  }
  return `svc@${hostname()}`;
}

/**
 * nodemailer over the SMTP URL, one connection per mail: notices are rare, so no pool stays open, and
 * nodemailer itself is loaded only when the first one goes out.
 */
function smtpSender(url: string): SendMail {
  let transport: Transporter | undefined;
  return async (mail) => {
    if (transport === undefined) {
      const { createTransport } = await import('nodemailer');
      transport = createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    }
    await transport.sendMail({ from: mail.from, to: mail.to, subject: mail.subject, text: mail.text });
  };
}

/**
 * E-mails recorded owner notifications (webhooks failing in a row) through SMTP. Rows are leased in a write
 * transaction, so several processes on one database mail each row once; a failed send is retried later
 * with a growing delay; a row nobody can be mailed about is marked skipped. It never throws out of `runDue`.
 */
export function createOwnerMailer(ctx: EngineContext, smtp: SmtpSettings, options: OwnerMailerOptions = {}): JobRunner {
  const store = ctx.stores.ownerMail;
  const send = options.send ?? smtpSender(smtp.url);
  const from = smtp.from ?? defaultFrom(smtp.url);
  const owner = processOwner();
  const leaseMs = options.leaseMs ?? 2 * MINUTE;
  const retryDelayMs = options.retryDelayMs ?? MINUTE;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 60 * MINUTE;
  const log = options.log ?? ((line: string) => ctx.logger.error(line));

  const claim = async (): Promise<ClaimedNotification[]> => {
    const now = ctx.clock.now();
    // A plain read first: the write lock is taken only when there is something to mail.
    if (!(await store.anyDue(now))) return [];
    const o = { now, owner, leaseMs, limit: options.batch ?? 10, maxAgeMs: options.maxAgeMs ?? 7 * 24 * 60 * MINUTE };
    // Read committed: on PostgreSQL the claim locks the rows it takes (SKIP LOCKED), so replicas racing for the
    // same notifications skip to others instead of failing and retrying.
    return inWriteTransaction(ctx, (tx) => tx.stores.ownerMail.claim(o), { isolation: 'read committed' });
  };

  const mailOne = async (n: ClaimedNotification): Promise<void> => {
    try {
      await send({ ...renderOwnerMail(n), to: n.recipient, from });
    } catch (error) {
      const message = scrubSmtpSecret(error instanceof Error ? error.message : String(error), smtp.url);
      const delay = Math.min(maxRetryDelayMs, retryDelayMs * 2 ** n.mailAttempts);
      await store.markFailed(n.id, owner, ctx.clock.now() + delay, message);
      log(`owner notification ${n.id}: e-mail to the owner failed (${message}); retrying in ${Math.round(delay / 1000)} s`);
      return;
    }
    // A lost lease means the send outlived it and another mailer may send too; nothing better can be done.
    await store.markSent(n.id, owner, ctx.clock.now());
  };

  return {
    name: OWNER_MAILER,
    async runDue() {
      let claimed: ClaimedNotification[];
      try {
        claimed = await claim();
      } catch (error) {
        // A busy database (another process holding the write lock past busy_timeout): try at the next poll.
        log(`owner notifications: could not claim (${String(error)})`);
        return 0;
      }
      // One at a time: notices are rare, and a slow SMTP server should not get a burst of connections.
      for (const n of claimed) await mailOne(n);
      return claimed.length;
    },
    // Read by the runner after every run; a failing read is logged there and waits for the next poll.
    nextDueAt: () => store.nextDueAt(),
  };
}
