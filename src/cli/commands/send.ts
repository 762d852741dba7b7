import type { Command } from 'commander';
import type { SvcClient } from '../../client/client.js';
import type { MessageDto, SendFields, SendResult } from '../../wire/types.js';
import type { CliContext } from '../context.js';
import { MAX_TEXT_CHARACTERS } from '../../wire/limits.js';
import { InputTooLarge, readTextWithin } from '../bounded-input.js';
import { CliError, usageError } from '../errors.js';
import { InputOpenError, openInput } from '../input-source.js';
import { positiveInt, seconds } from '../parse.js';
import { readUpload } from '../upload.js';
import { sendView } from '../views.js';
import { waitForMessage } from '../wait-for-message.js';

interface SendOptions {
  phone?: string;
  chat?: number;
  chatName?: string;
  text?: string;
  textFile?: string;
  file?: string;
  fileUid?: string;
  label?: string;
  template?: number;
  replyTo?: string;
  from?: string;
  wait: boolean;
  waitTimeout: number;
}

/** What to do about each failure reason the engine reports (src/network/driver.ts). */
const FAILURE_HINTS: Record<string, string> = {
  invalid_number: 'use an international number: +, country code, then the number (e.g. +14155550123)',
  unreachable: 'the recipient cannot be reached on the network; check the number or try again later',
  account_not_connected: 'reconnect the sending account; `svc accounts list` shows account status',
  network_error: 'the network failed; send again later',
};

/** `svc send`: sends one message and, unless --no-wait, waits until it is Sent or Failed. */
export function registerSend(program: Command, ctx: CliContext): void {
  program
    .command('send')
    .description('send a message to a phone number, a chat id, or (deprecated) a chat name')
    .option('--phone <phone>', 'recipient number in international format, e.g. +14155550123')
    .option('--chat <id>', 'id of an existing chat', positiveInt)
    .option('--chat-name <name>', 'exact name of an existing chat (deprecated: use --chat or --phone)')
    .option('--text <text>', 'message text; - reads it from standard input')
    .option('--text-file <path>', 'read the message text from a file')
    .option('--file <path>', 'attach a local file (uploaded first)')
    .option('--file-uid <uid>', 'attach an already uploaded file')
    .option('--label <label>', 'label the chat (created when missing)')
    .option('--template <id>', 'attachment template id', positiveInt)
    .option('--reply-to <uid>', 'uid of the message to reply to')
    .option('--from <phone>', 'sending account number (with --phone only); default: most recently connected')
    .option('--wait-timeout <seconds>', 'how long to wait for Sent or Failed', seconds, 30)
    .option('--no-wait', 'return as soon as the message is accepted (status Pending)')
    .action(async (opts: SendOptions) => {
      await send(ctx, opts);
    });
}

/**
 * The text from `--text`, `--text -` (standard input) or `--text-file`. Trailing newlines are dropped, as
 * `$(...)` does in a shell: `echo hi | svc send --text -` sends "hi". An empty text is refused before a credit
 * is spent; a text past the limit is refused as soon as its 10,001st character arrives, without reading on.
 */
async function messageText(ctx: CliContext, opts: SendOptions): Promise<string | undefined> {
  if (opts.text !== undefined && opts.textFile !== undefined) throw usageError('use either --text or --text-file, not both');
  if (opts.text !== '-' && opts.textFile === undefined) return opts.text;
  let chunks: AsyncIterable<Uint8Array | string>;
  let source: string;
  if (opts.textFile === undefined) {
    source = 'standard input';
    if (ctx.io.stdinIsTTY) ctx.output.note('reading the message text from standard input; end it with Ctrl-D');
    chunks = ctx.io.stdin();
  } else {
    source = opts.textFile;
    try {
      chunks = (await openInput(opts.textFile)).chunks;
    } catch (error) {
      const code = error instanceof InputOpenError ? error.code : 'unreadable';
      throw usageError(`cannot read --text-file ${opts.textFile} (${code})`, 'check the path');
    }
  }
  let text: string;
  try {
    text = await readTextWithin(chunks, MAX_TEXT_CHARACTERS);
  } catch (error) {
    if (!(error instanceof InputTooLarge)) {
      throw usageError(`cannot read ${source} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`, 'check what is passed to --text / --text-file');
    }
    // The engine's own wording and code, so a long text fails alike whichever way it was given.
    throw new CliError(
      'validation_error',
      `the message text from ${source} is too long: --text may be at most ${MAX_TEXT_CHARACTERS} characters`,
      'nothing was sent and no credit was spent; shorten the text, or attach it as a file with --file',
    );
  }
  if (text === '') throw usageError(`the message text from ${source} is empty`, 'nothing was sent and no credit was spent');
  return text;
}

async function send(ctx: CliContext, opts: SendOptions): Promise<void> {
  const targets = [opts.phone, opts.chat, opts.chatName].filter((v) => v !== undefined);
  if (targets.length > 1) throw usageError('use only one of --phone, --chat and --chat-name');
  if (opts.file !== undefined && opts.fileUid !== undefined) throw usageError('use either --file or --file-uid, not both');
  if (opts.from !== undefined && opts.phone === undefined && targets.length > 0) {
    throw usageError('--from selects the sending account and works only with --phone');
  }
  if (opts.chatName !== undefined) {
    ctx.output.warn('--chat-name uses a deprecated endpoint that will be removed; use --chat ID or --phone instead');
  }
  if (targets.length === 0) {
    opts.phone = await ctx.ask(
      { kind: 'input', message: 'Recipient phone number (e.g. +14155550123):' },
      'say who receives the message: --phone, --chat or --chat-name',
    );
  }
  opts.text = await messageText(ctx, opts);
  const hasContent = [opts.text, opts.file, opts.fileUid, opts.template].some((v) => v !== undefined);
  if (!hasContent) {
    opts.text = await ctx.ask(
      { kind: 'input', message: 'Message text:' },
      'nothing to send: pass --text, --file, --file-uid or --template',
    );
  }

  // Read before the client opens an engine or a connection: a file that is missing or too large fails first.
  const upload = opts.file === undefined ? undefined : await readUpload(opts.file);
  const client = await ctx.client();
  let fileUid = opts.fileUid;
  if (upload !== undefined) {
    const uploaded = await client.uploadFile(upload);
    fileUid = uploaded.uid;
    ctx.output.note(`uploaded ${uploaded.filename} as ${uploaded.uid}`);
  }
  const fields: SendFields = {
    ...(opts.text === undefined ? {} : { text: opts.text }),
    ...(fileUid === undefined ? {} : { file_uid: fileUid }),
    ...(opts.label === undefined ? {} : { label: opts.label }),
    ...(opts.template === undefined ? {} : { attachment_template_id: opts.template }),
    ...(opts.replyTo === undefined ? {} : { reply_to: opts.replyTo }),
  };

  let accepted: SendResult;
  if (opts.chat !== undefined) accepted = await client.sendToChat(opts.chat, fields);
  else if (opts.chatName !== undefined) accepted = await client.sendToChatName({ ...fields, chat_name: opts.chatName });
  else {
    const phone = opts.phone as string;
    accepted = await client.sendToPhone({
      ...fields,
      phone,
      ...(opts.from === undefined ? {} : { messenger_account_phone: opts.from }),
    });
  }

  if (!opts.wait || accepted.status === 'Sent' || accepted.status === 'Failed') {
    ctx.output.result(accepted, sendView(accepted));
    if (accepted.status === 'Failed') throw failed(accepted.message_uid, null);
    return;
  }

  const outcome = await waitForMessage(ctx, client, accepted.message_uid, opts.waitTimeout * 1000);
  const { message } = outcome;
  const result = {
    ...accepted,
    status: message.status,
    ...(message.status === 'Failed' ? { failure_reason: message.failure_reason } : {}),
  };
  ctx.output.result(result, sendView(result));
  if (message.status === 'Failed') throw failed(message.uid, message.failure_reason);
  if (!outcome.final) throw await stillQueued(client, message, opts.waitTimeout);
}

/** The wait ran out. A suspended sending account is the usual reason: name it rather than leave a guess. */
async function stillQueued(client: SvcClient, message: MessageDto, waitedSec: number): Promise<CliError> {
  const account = (await client.listAccounts().then((page) => page.items, () => [])).find((a) => a.phone === message.messenger_account_phone);
  if (account?.status === 'suspended') {
    return new CliError(
      'timeout',
      `message ${message.uid} is still ${message.status}: its sending account ${account.phone} is suspended`,
      `it stays queued and is sent once the account resumes; \`svc accounts list\` shows account status`,
    );
  }
  return new CliError(
    'timeout',
    `message ${message.uid} is still ${message.status} after ${waitedSec} s`,
    `it stays queued and will be sent; check with \`svc messages get ${message.uid}\` or raise --wait-timeout`,
  );
}

function failed(uid: string, reason: string | null): CliError {
  const hint = (reason === null ? undefined : FAILURE_HINTS[reason]) ?? 'check the recipient and the sending account, then send again';
  return new CliError(
    'send_failed',
    `message ${uid} failed: ${reason ?? 'unknown reason'} (its credits are restored)`,
    hint,
  );
}
