import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { FakeClock } from '../../src/wire/clock.js';
import { createEngine, type EngineParts } from '../../src/runtime/create-engine.js';
import type { Db } from '../../src/store/database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { fakeSender, fail } from './webhook-engine.js';
import { fixedRandom } from './test-engine.js';

/** One mail as the SMTP server received it. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The whole message (headers and body) with quoted-printable soft breaks and escapes undone. */
  raw: string;
}

/** Undoes quoted-printable (nodemailer uses it for long lines) so tests can search the text as written. */
const decodeQp = (text: string): string =>
  text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A real SMTP server on 127.0.0.1 (port 0 unless one is given) that keeps every mail it accepts. */
export async function startSmtp(port = 0) {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Any login is fine: the test only checks that the password never leaks, not that it is verified.
    onAuth: (_auth, _session, callback) => callback(null, { user: 'svc' }),
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: decodeQp(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address() as AddressInfo;
  return {
    mails,
    port: address.port,
    url: (auth = '') => `smtp://${auth}127.0.0.1:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on right now (a server was started there and closed again). */
export async function freePort(): Promise<number> {
  const smtp = await startSmtp();
  await smtp.close();
  return smtp.port;
}

/**
 * An engine (fake clock, dev mode) whose webhooks always fail with 500, with a workspace "Acme" owned by
 * owner@example.com and one subscription to it. Retries are immediate, so each `runDue` after a test event
 * is one failed delivery. `db` is the raw better-sqlite3 handle the engine's SQLite database wraps (tests read it).
 */
export function failingEngine(db: Db, parts: Partial<EngineParts> & { clock?: FakeClock } = {}) {
  const clock = parts.clock ?? new FakeClock();
  const sender = fakeSender(() => fail(500));
  const engine = createEngine({
    database: new SqliteDatabase(db),
    random: fixedRandom(),
    webhookSend: sender.send,
    ...parts,
    clock,
    config: { dev: true, webhookRetryDelaysMs: [0, 0], webhookFailureNotifyThreshold: 3, ...parts.config },
  });
  return { engine, clock, sender, db };
}

/** Creates a workspace and a subscription of it; returns their ids, token and signing secret. */
export async function subscribedWorkspace(engine: ReturnType<typeof createEngine>, ownerEmail?: string) {
  const ws = await engine.admin.createWorkspace({ name: 'Acme', ...(ownerEmail === undefined ? {} : { owner_email: ownerEmail }) });
  const hooks = engine.webhooks(ws.workspace_id);
  const created = await hooks.create({ event_type: 'message:received:new', url: 'https://hooks.example.com/in?token=qs-secret-123' });
  return { ws, hooks, subscription: created };
}

/** Queues `n` test events for the subscription and runs the workers after each, so each one fails in full. */
export async function failDeliveries(engine: ReturnType<typeof createEngine>, hooks: ReturnType<ReturnType<typeof createEngine>['webhooks']>, id: number, n: number) {
  for (let i = 0; i < n; i += 1) {
    await hooks.test(id);
    await engine.workers.runDue();
  }
}

/** The e-mail state of every owner notification, oldest first. */
export const notificationRows = (db: Db) =>
  db
    .prepare('SELECT id, mail_status, mail_attempts, mail_next_at, mail_error, emailed_at FROM owner_notifications ORDER BY id')
    .all() as Array<{ id: number; mail_status: string; mail_attempts: number; mail_next_at: number | null; mail_error: string | null; emailed_at: number | null }>;
