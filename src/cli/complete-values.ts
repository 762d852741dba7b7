import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { EVENT_TYPES, PARTNER_EVENTS } from '../wire/webhook-events.js';
import { completeWords } from './completion.js';
import type { CliContext } from './context.js';
import { commandPath } from './help-examples.js';

/** How long a Tab press may wait for values from the engine or a server; then it offers none. */
export const COMPLETION_TIMEOUT_MS = 1000;

/** What the words before the one being typed say: the command named, its positional arguments, an open option. */
interface Position {
  command: Command;
  path: string;
  positionals: string[];
  /** The option whose value is being typed (`--event <TAB>`), if any. */
  option: Option | undefined;
}

const WEBHOOK_ID_COMMANDS = ['get', 'update', 'delete', 'deliveries', 'redeliver', 'test'];
const CHAT_ID_COMMANDS = ['chats get', 'chats messages', 'chats assign', 'chats unassign'];
const PROFILE_COMMANDS = ['profile use', 'profile show', 'profile delete'];

/**
 * Candidates for `svc __complete WORDS... CURRENT`: values where the words call for one (event names, webhook
 * and chat ids, profile names), else subcommands and options from the command tree. Values are asked from
 * whatever the command would target (the local engine, or the server of --base-url, SVC_BASE_URL or the
 * profile), within COMPLETION_TIMEOUT_MS; anything that fails or is late yields no candidates, never an error.
 */
export async function completeCandidates(ctx: CliContext, program: Command, words: string[]): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const position = locate(program, words.slice(0, -1));
  if (current.startsWith('-') && position.option === undefined) return completeWords(program, words);
  const values = valueSource(ctx, position);
  if (values === undefined) return position.option === undefined ? completeWords(program, words) : [];
  const candidates = await withTimeout(values(), COMPLETION_TIMEOUT_MS);
  // `--events a,b,<TAB>` completes the last name of the list.
  const listed = position.option?.long === '--events' ? current.slice(0, current.lastIndexOf(',') + 1) : '';
  return [...new Set(candidates.map((value) => `${listed}${value}`))].filter((value) => value.startsWith(current)).sort();
}

/**
 * Walks the words as commander would: subcommands, option values (which are not positionals), positionals.
 * The root's options given among the words (--base-url, --data, --profile ...) are set on the program, so the
 * values come from the target the command itself would use.
 */
function locate(program: Command, before: string[]): Position {
  let command = program;
  const positionals: string[] = [];
  let option: Option | undefined;
  for (const word of before) {
    if (option !== undefined) {
      if (program.options.includes(option)) setRootOption(program, option, word);
      option = undefined;
    } else if (word.startsWith('--') && !word.includes('=')) {
      const found = [...command.options, ...program.options].find((o) => o.long === word);
      if (found !== undefined && (found.required || found.optional)) option = found;
    } else if (word.startsWith('--')) {
      const [flag = '', value = ''] = [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)];
      const found = program.options.find((o) => o.long === flag);
      if (found !== undefined) setRootOption(program, found, value);
    } else if (!word.startsWith('-')) {
      const sub = positionals.length === 0 ? command.commands.find((c) => c.name() === word || c.aliases().includes(word)) : undefined;
      if (sub !== undefined) command = sub;
      else positionals.push(word);
    }
  }
  return { command, path: commandPath(command), positionals, option };
}

function setRootOption(program: Command, option: Option, value: string): void {
  try {
    const parsed: unknown = option.parseArg === undefined ? value : option.parseArg(value, undefined);
    program.setOptionValueWithSource(option.attributeName(), parsed, 'cli');
  } catch {
    // A value the option refuses: the command would fail too; complete against the default target.
  }
}

/** Where the values for this position come from, or undefined when it takes no value svc can list. */
function valueSource(ctx: CliContext, { path, positionals, option }: Position): (() => Promise<string[]>) | undefined {
  const partner = path === 'partner' || path.startsWith('partner ');
  if (option !== undefined) {
    if (option.long === '--event' || option.long === '--events') return async () => [...(partner ? PARTNER_EVENTS : EVENT_TYPES)];
    if (option.long === '--profile') return async () => Object.keys(ctx.profiles.list());
    if (option.long === '--chat') return () => chatIds(ctx);
    return undefined;
  }
  if (positionals.length > 0) return undefined;
  if (path === 'trigger') return async () => [...EVENT_TYPES];
  if (path === 'partner trigger') return async () => [...PARTNER_EVENTS];
  if (PROFILE_COMMANDS.includes(path)) return async () => Object.keys(ctx.profiles.list());
  if (CHAT_ID_COMMANDS.includes(path)) return () => chatIds(ctx);
  const [scope, sub] = [path.slice(0, path.lastIndexOf(' ')), path.slice(path.lastIndexOf(' ') + 1)];
  if (WEBHOOK_ID_COMMANDS.includes(sub) && (scope === 'webhooks' || scope === 'partner webhooks')) return () => webhookIds(ctx, scope === 'partner webhooks');
  return undefined;
}

async function chatIds(ctx: CliContext): Promise<string[]> {
  if (!hasData(ctx, ctx.config().baseUrl)) return [];
  return (await (await ctx.client()).listChats(1)).items.map((chat) => String(chat.id));
}

async function webhookIds(ctx: CliContext, partner: boolean): Promise<string[]> {
  const config = ctx.config();
  if (!hasData(ctx, partner ? config.partnerBaseUrl : config.baseUrl)) return [];
  const webhooks = partner ? (await ctx.partnerClient()).webhooks : (await ctx.client()).webhooks;
  return (await webhooks.list(1)).items.map((webhook) => String(webhook.id));
}

/** A Tab press never creates a data directory: with no server and no local data there is nothing to list. */
function hasData(ctx: CliContext, server: string | undefined): boolean {
  const config = ctx.config();
  return server !== undefined || config.databaseUrl !== undefined || existsSync(join(config.dataDir, 'svc.db'));
}

/** The values, or none when they fail or take longer than `ms`. */
async function withTimeout(values: Promise<string[]>, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), ms);
  });
  try {
    return await Promise.race([values.catch(() => []), late]);
  } finally {
    clearTimeout(timer);
  }
}
