import type {
  AttachmentTemplateDto,
  ChatDto,
  FileDto,
  MessageDto,
  MessengerAccountDto,
  Page,
  SendResult,
  WorkspaceDto,
} from '../wire/types.js';
import { type View, rowIfPresent } from './output.js';

// How each wire shape reads for a human. Commands pick one; `--json` never sees these.

const short = (text: string | null, max = 40): string | null =>
  text === null || text.length <= max ? text : `${text.slice(0, max - 1)}…`;

/** A send result after acceptance or after waiting. */
export const sendView = (r: SendResult): View => ({
  kind: 'record',
  rows: [
    ['message_uid', r.message_uid],
    ['status', r.status],
    ['chat_id', r.chat_id],
    ['credits', r.credits],
  ],
});

/** One message. */
export const messageView = (m: MessageDto): View => ({
  kind: 'record',
  rows: [
    ['uid', m.uid],
    ['status', m.status],
    ['failure_reason', m.failure_reason],
    ['direction', m.direction],
    ['chat_id', m.chat_id],
    ['account', m.messenger_account_phone],
    ['contact', m.contact_phone],
    ['text', m.text],
    ['file_uid', m.file_uid],
    ['template_id', m.attachment_template_id],
    ['reply_to', m.reply_to_uid],
    ['reactions', m.reactions],
    ['credits', m.credits],
    ['created_at', m.created_at],
    ['sent_at', m.sent_at],
  ],
});

/** Messages of a chat. */
export const messagesTable = (page: Page<MessageDto>): View => ({
  kind: 'table',
  head: ['uid', 'direction', 'status', 'text', 'created_at'],
  rows: page.items.map((m) => [m.uid, m.direction, m.status, short(m.text), m.created_at]),
  empty: 'no messages',
});

/** One chat. */
export const chatView = (c: ChatDto): View => ({
  kind: 'record',
  rows: [
    ['id', c.id],
    ['name', c.name],
    ['phone', c.phone],
    ['group', c.is_group ? 'yes' : 'no'],
    ['account', c.messenger_account_phone],
    ['responsible', c.responsible_email],
    ['labels', c.labels],
    ['created_at', c.created_at],
  ],
});

/** A page of chats. */
export const chatsTable = (page: Page<ChatDto>): View => ({
  kind: 'table',
  head: ['id', 'name', 'phone', 'account', 'responsible', 'labels'],
  rows: page.items.map((c) => [c.id, c.name, c.phone, c.messenger_account_phone, c.responsible_email, c.labels]),
  empty: 'no chats',
});

/** One file. */
export const fileView = (f: FileDto): View => ({
  kind: 'record',
  rows: [
    ['uid', f.uid],
    ['filename', f.filename],
    ['mimetype', f.mimetype],
    ['size', f.size],
    ['created_at', f.created_at],
    ...rowIfPresent('download_url', f.temporary_download_url),
    ...rowIfPresent('expires_at', f.expires_at),
  ],
});

/** A page of files. */
export const filesTable = (page: Page<FileDto>): View => ({
  kind: 'table',
  head: ['uid', 'filename', 'mimetype', 'size', 'created_at'],
  rows: page.items.map((f) => [f.uid, f.filename, f.mimetype, f.size, f.created_at]),
  empty: 'no files',
});

/** Connected messenger accounts. */
export const accountsTable = (accounts: MessengerAccountDto[]): View => ({
  kind: 'table',
  head: ['phone', 'name', 'status', 'default', 'connected_at'],
  rows: accounts.map((a) => [a.phone, a.full_name, a.status, a.is_default_sender ? 'yes' : '', a.connected_at]),
  empty: 'no messenger accounts; connect one with `svc sim connect --phone +15550001`',
});

/** The workspace with its plan, seats and quota. */
const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1).replace(/\.0$/, '');

export const workspaceView = (w: WorkspaceDto): View => {
  const q = w.messaging_quota;
  return {
    kind: 'record',
    rows: [
      ['id', w.id],
      ['name', w.name],
      ['plan', w.plan],
      ['seats', `${w.seats_used}/${w.seats_purchased}`],
      ['quota', `${q.used}/${q.total} used, ${q.remaining} left`],
      ['period', `${q.period_start} – ${q.period_end}`],
      ['send_interval', w.send_interval_ms === null ? 'default (random ~2 s)' : `${w.send_interval_ms} ms`],
      ['storage', `${mib(w.storage.used_bytes)} of ${mib(w.storage.limit_bytes)} MiB used`],
    ],
  };
};

/** Attachment templates. */
export const templatesTable = (page: Page<AttachmentTemplateDto>): View => ({
  kind: 'table',
  head: ['id', 'name', 'file_uid', 'created_at'],
  rows: page.items.map((t) => [t.id, t.name, t.file_uid, t.created_at]),
  empty: 'no templates',
});

/** One attachment template. */
export const templateView = (t: AttachmentTemplateDto): View => ({
  kind: 'record',
  rows: [
    ['id', t.id],
    ['name', t.name],
    ['file_uid', t.file_uid],
    ['created_at', t.created_at],
  ],
});
