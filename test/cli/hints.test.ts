/**
 * Every command svc names in a message, hint, note, description or error (anywhere in src/, in any string) is
 * parsed against the real command tree, with its placeholders filled in: a hint that names a command, a flag
 * or a value the CLI would refuse fails here, before a user types it. Placeholders are the upper-case words
 * of PLACEHOLDERS (the user replaces them); `${...}` in a template is filled with a sample id.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Command, CommanderError } from 'commander';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { CliContext } from '../../src/cli/context.js';
import type { ResolvedIo } from '../../src/cli/io.js';
import { buildProgram } from '../../src/cli/program.js';
import { createClient } from '../../src/client/create-client.js';
import { REPO_ROOT } from '../support/svc-process.js';
import { runSvc, tempDir } from '../support/run-cli.js';

/** What each placeholder stands for when the hint is tried. */
const PLACEHOLDERS: Record<string, string> = {
  WS: '1',
  USER: '2',
  ID: '3',
  UID: 'msg_1',
  N: '5',
  MS: '100',
  T: 'svc_token',
  TOKEN: 'svc_token',
  URL: 'http://127.0.0.1:8080/api',
  U: 'https://example.com/hooks',
  E: 'message:new',
  EVENT: 'message:new',
  DIR: './data',
  PATH: './menu.pdf',
  NAME: 'staging',
  LINK: 'http://127.0.0.1:8080/connect/abcdefghijklmnop',
};
/** A placeholder after one of these flags stands for that flag's kind of value. */
const AFTER_FLAG: Record<string, string> = { '--database': 'postgres://svc@127.0.0.1:5432/svc' };

/** Template parts that hold a command path rather than an id: every value they take is tried. */
const COMMAND_PARTS: Record<string, string[]> = {
  'help.command': ['svc webhooks', 'svc partner webhooks'],
  webhooksCommand: ['svc webhooks', 'svc partner webhooks'],
  listenCommand: ['svc webhooks listen', 'svc partner webhooks listen'],
};

/** Files whose strings are not hints: the shell completion scripts (shell code around `svc __complete`). */
const NOT_HINTS = new Set(['src/cli/completion.ts']);
/** The help examples are shell lines: the svc command in each runs up to a pipe, a redirection or `)`. */
const EXAMPLES = 'src/cli/help-examples.ts';

interface Mention {
  where: string;
  text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every string and template in a file, with `${expr}` kept as written. */
function literals(file: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    let text: string | undefined;
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) text = node.text;
    else if (ts.isTemplateExpression(node)) {
      text = node.head.text + node.templateSpans.map((span) => `\${${span.expression.getText(source)}}${span.literal.text}`).join('');
    }
    if (text !== undefined) found.push({ line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, text });
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The commands a string names: each `...` segment that starts with `svc ` (or a command part), and a string
 * that is a command as a whole (`'svc webhooks'`, a value hints are built from). A command named anywhere
 * else, in running text, is reported as unquoted: the test could not tell where it ends, and neither could a
 * reader.
 */
function mentions(topLevel: string[]): { commands: Mention[]; unquoted: Mention[] } {
  const commands: Mention[] = [];
  const unquoted: Mention[] = [];
  const named = new RegExp(`\\bsvc (${topLevel.join('|')})\\b`);
  const parts = Object.keys(COMMAND_PARTS).map((part) => `\${${part}}`);
  // `svc ` and a word: a typo'd command is a command too (and fails to parse); a title like 'svc Public API' is not.
  const isCommand = (text: string): boolean => /^svc [a-z]/.test(text) || parts.some((part) => text.startsWith(part));
  for (const file of sourceFiles(join(REPO_ROOT, 'src'))) {
    const path = relative(REPO_ROOT, file);
    if (NOT_HINTS.has(path)) continue;
    for (const { line, text } of literals(file)) {
      const where = `${path}:${line}`;
      if (path === EXAMPLES) {
        if (text.includes('svc ')) commands.push({ where, text: text.slice(text.indexOf('svc ')).split(/\s*[|>)]/)[0]! });
        continue;
      }
      const quoted = [...text.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
      for (const segment of quoted) if (isCommand(segment)) commands.push({ where, text: segment });
      const rest = text.replace(/`[^`]*`/g, '``');
      if (quoted.length === 0 && isCommand(text)) commands.push({ where, text });
      else if (named.test(rest) || parts.some((part) => rest.includes(part))) unquoted.push({ where, text });
    }
  }
  return { commands, unquoted };
}

/** The argument lists a mention stands for: command parts expanded, placeholders and ids filled in. */
function invocations(text: string): string[][] {
  const part = Object.keys(COMMAND_PARTS).find((p) => text.startsWith(`\${${p}}`));
  const texts = part === undefined ? [text] : COMMAND_PARTS[part]!.map((value) => value + text.slice(`\${${part}}`.length));
  return texts.map((t) =>
    words(t.replace(/\$\{[^}]*\}/g, '1'))
      .slice(1)
      .map((word, i, all) => (PLACEHOLDERS[word] === undefined ? word : (AFTER_FLAG[all[i - 1] ?? ''] ?? PLACEHOLDERS[word]))),
  );
}

/** Shell-like words: quotes group, and are removed. */
function words(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** The real command tree with every action made harmless; required options are not required (a hint may name the command only). */
function commandTree(): { program: Command; errors: string[] } {
  const errors: string[] = [];
  const io = { stdout: () => {}, stderr: () => {}, env: {}, stdinIsTTY: false, stdoutIsTTY: false } as unknown as ResolvedIo;
  const ctx = new CliContext(io, []);
  const program = buildProgram(ctx, { onCommanderError: (message) => errors.push(message) });
  ctx.program = program;
  const disarm = (command: Command): void => {
    command.action(() => {});
    for (const option of command.options) option.mandatory = false;
    command.commands.forEach(disarm);
  };
  program.commands.forEach(disarm);
  return { program, errors };
}

/** Why `args` does not parse, or null when it does. */
async function parseProblem(args: string[]): Promise<string | null> {
  const { program, errors } = commandTree();
  try {
    await program.parseAsync(args, { from: 'user' });
    return null;
  } catch (error) {
    // A command group named alone shows its help: the command exists.
    if (error instanceof CommanderError && ['commander.help', 'commander.helpDisplayed', 'commander.version'].includes(error.code)) return null;
    return errors.join('; ') || String(error);
  }
}

describe('hints name commands exactly as they must be typed', () => {
  const topLevel = commandTree().program.commands.map((c) => c.name());
  const found = mentions(topLevel);

  it('finds the hints (the scan itself works)', () => {
    const texts = found.commands.map((m) => m.text);
    expect(texts).toContain('svc accounts list');
    expect(texts).toContain('svc webhooks listen --forward-to 3000/hooks');
    expect(texts.some((t) => t.startsWith('svc admin workspace update ${'))).toBe(true);
    expect(found.commands.length).toBeGreaterThan(60);
  });

  it('every command named in a string is between backticks (or is the whole string)', () => {
    expect(found.unquoted.map((m) => `${m.where}: ${m.text}`)).toEqual([]);
  });

  it('every command named parses against the CLI, with its placeholders filled in', async () => {
    const problems: string[] = [];
    for (const mention of found.commands) {
      for (const args of invocations(mention.text)) {
        const problem = await parseProblem(args);
        if (problem !== null) problems.push(`${mention.where}: \`${mention.text}\` -> svc ${args.join(' ')}: ${problem}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the test fails for a hint that names a missing argument, flag or command', async () => {
    expect(await parseProblem(invocations('svc admin workspace update --quota N')[0]!)).toMatch(/missing required argument 'ws'/);
    expect(await parseProblem(invocations('svc webhooks update ID --enabled')[0]!)).toMatch(/unknown option '--enabled'/);
    expect(await parseProblem(invocations('svc chat list')[0]!)).toMatch(/unknown command 'chat'/);
    expect(await parseProblem(invocations('svc partner qr WS')[0]!)).toMatch(/missing required argument 'user'/);
  });

  it('the quota hint, typed as printed with N filled in, raises the quota of the workspace that ran out', async () => {
    const env = { SVC_HOME: tempDir('svc-home-'), SVC_CONFIG_DIR: tempDir('svc-conf-') };
    const svc = (args: string[]) => runSvc(args, { env, io: { createClient } });
    await svc(['admin', 'workspace', 'create', '--name', 'Other', '--json']);
    const { workspace_id: ws, token } = (await svc(['admin', 'workspace', 'create', '--name', 'Acme', '--quota', '0', '--json'])).json<{ workspace_id: number; token: string }>();
    await svc(['sim', 'connect', '--phone', '+15550001234', '--token', token]);
    const refused = await svc(['send', '--phone', '+14155550123', '--text', 'Hi', '--token', token, '--no-wait']);
    expect(refused.code).toBe(1);
    const typed = /`(svc admin workspace update [^`]+)`/.exec(refused.stderr)?.[1];
    expect(typed).toBe(`svc admin workspace update ${ws} --quota N`);
    expect((await svc(words(typed!.replace(' N', ' 5')).slice(1))).code).toBe(0);
    expect((await svc(['send', '--phone', '+14155550123', '--text', 'Hi', '--token', token, '--no-wait'])).code).toBe(0);
  });
});
