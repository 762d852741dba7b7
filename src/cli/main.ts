import { CommanderError } from 'commander';
import { createClient } from '../client/create-client.js';
import { COMPLETION_TIMEOUT_MS, completeCandidates } from './complete-values.js';
import { CliContext } from './context.js';
import { EXIT, redact, reportError } from './errors.js';
import { fdLineWriter } from './fd-line-writer.js';
import type { CliIo, PromptQuestion, ResolvedIo } from './io.js';
import { buildProgram } from './program.js';

export type { CliIo } from './io.js';

/** Real prompts, drawn on stderr so stdout keeps only results. */
async function inquirerPrompt(question: PromptQuestion): Promise<string> {
  const { confirm, input, password } = await import('@inquirer/prompts');
  const context = { output: process.stderr };
  if (question.kind === 'confirm') return (await confirm({ message: question.message, default: false }, context)) ? 'yes' : 'no';
  return question.kind === 'password'
    ? password({ message: question.message, mask: '*' }, context)
    : input({ message: question.message, ...(question.default === undefined ? {} : { default: question.default }) }, context);
}

/** Fills in what a caller left out with the real implementation (lazy imports keep startup fast). */
function resolveIo(io: CliIo): ResolvedIo {
  // Drop members passed as undefined so they do not hide the defaults.
  const given = Object.fromEntries(Object.entries(io).filter(([, value]) => value !== undefined)) as CliIo;
  return {
    stderrIsTTY: io.stdoutIsTTY,
    logLines: io.stderr,
    prompt: inquirerPrompt,
    createClient,
    createPartnerClient: async (config) => (await import('../client/create-partner-client.js')).createPartnerClient(config),
    openEngine: async (opts) => (await import('../runtime/open-engine.js')).openEngine(opts),
    serve: async (opts) => (await import('../http/serve.js')).serve(opts),
    onInterrupt: () => () => {},
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
    stdin: () => process.stdin,
    ...given,
  } as ResolvedIo;
}

/** IO of the real process; `overrides` lets the binary add its signal handling. */
export function processIo(overrides: Partial<CliIo> = {}): CliIo {
  return {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    logLines: fdLineWriter(process.stderr.fd),
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    env: process.env,
    ...overrides,
  };
}

/**
 * Runs one `svc` invocation. `argv` holds the user's arguments only (`process.argv.slice(2)`).
 * Resolves with the exit code (docs/api-behaviour.md) and never exits the process itself.
 */
export async function runCli(argv: string[], io: CliIo = processIo()): Promise<number> {
  const resolved = resolveIo(io);
  if (argv[0] === '__complete') return complete(argv.slice(1), resolved);
  const ctx = new CliContext(resolved, argv);
  const program = buildProgram(ctx, {
    onCommanderError: (message) =>
      ctx.output.error({ code: 'usage_error', message: redact(message, ctx.secrets()), hint: 'run the command with --help for usage' }),
  });
  ctx.program = program;
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return EXIT.usage;
    }
    const reported = reportError(error, ctx.target());
    const secrets = ctx.secrets();
    ctx.output.error({
      code: reported.code,
      message: redact(reported.message, secrets),
      hint: reported.hint === undefined ? undefined : redact(reported.hint, secrets),
    });
    return reported.exitCode;
  } finally {
    await ctx.close();
  }
}

/**
 * `svc __complete WORDS... CURRENT`, asked by the completion scripts on every Tab: candidates on stdout, one a
 * line. It never prints an error and never waits long: values come within COMPLETION_TIMEOUT_MS or not at all,
 * and closing what was opened gets a moment more (the binary exits right after).
 */
async function complete(words: string[], io: ResolvedIo): Promise<number> {
  const quiet: ResolvedIo = { ...io, stderr: () => {}, logLines: () => {} };
  const ctx = new CliContext(quiet, words);
  ctx.program = buildProgram(ctx, { onCommanderError: () => {} });
  ctx.clientLimits = { timeoutMs: COMPLETION_TIMEOUT_MS, workers: false };
  try {
    for (const candidate of await completeCandidates(ctx, ctx.program, words)) io.stdout(`${candidate}\n`);
  } catch {
    // No candidates rather than an error in the middle of the user's command line.
  } finally {
    await Promise.race([ctx.close(), new Promise((resolve) => setTimeout(resolve, 200))]);
  }
  return EXIT.ok;
}
