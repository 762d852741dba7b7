import { Command } from 'commander';
import { registerAdmin } from './commands/admin.js';
import { registerChats } from './commands/chats.js';
import { registerDev } from './commands/dev.js';
import { registerFiles } from './commands/files.js';
import { registerLogin, registerLogout } from './commands/login.js';
import { registerMessages } from './commands/messages.js';
import { registerPartner } from './commands/partner.js';
import { registerProfile } from './commands/profile.js';
import { registerSend } from './commands/send.js';
import { registerServe } from './commands/serve.js';
import { registerSim } from './commands/sim.js';
import { registerStatus } from './commands/status.js';
import { registerWebhooks } from './commands/webhooks.js';
import { registerWebhooksListen } from './commands/webhooks-listen.js';
import { registerWorkspace } from './commands/workspace.js';
import { COMPLETION_SHELLS, completionScript } from './completion.js';
import type { CliContext } from './context.js';
import { addHelpExamples } from './help-examples.js';
import { loadJqFilter } from './jq.js';
import { httpUrl, positiveInt, postgresUrl } from './parse.js';
import { VERSION } from './version.js';

/**
 * Builds the command tree for one invocation. Output and exit behaviour are configured on the root
 * before any subcommand is added, because commander copies them to subcommands only at creation.
 */
export function buildProgram(ctx: CliContext, errors: { onCommanderError: (message: string) => void }): Command {
  const program = new Command('svc');
  program
    .description('send messages through connected messenger accounts, on a local engine or a remote instance')
    .version(VERSION, '--version', 'print the version')
    .option('--json', 'print the result as JSON on stdout, nothing else')
    .option('--jq <expression>', 'filter the JSON result with jq (implies --json): strings print raw, e.g. --jq .token')
    .option('--profile <name>', 'use a saved profile (env SVC_PROFILE)')
    .option('--base-url <url>', 'Public API of a remote instance, e.g. http://127.0.0.1:8080/api (env SVC_BASE_URL)', httpUrl)
    .option('--token <token>', 'API token (env SVC_TOKEN)')
    .option('--data <dir>', 'data directory of the local engine (env SVC_HOME, default ~/.local/share/svc)')
    .option('--database <url>', 'PostgreSQL database of the local engine instead of --data, e.g. postgres://svc@db:5432/svc (env SVC_DATABASE_URL)', postgresUrl)
    .option('--workspace <id>', 'workspace of the local engine to act on, instead of --token (default: the Local workspace)', positiveInt)
    .option('--no-color', 'no colours (also NO_COLOR)')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => ctx.io.stdout(text),
      writeErr: (text) => ctx.io.stderr(text),
      // Parse errors go through the same reporter as every other error (JSON form, hint).
      outputError: (text) => errors.onCommanderError(text.replace(/^error:\s*/, '').trim()),
    })
    .showSuggestionAfterError(true)
    // Subcommand help lists the global options too (--json, --base-url, --token, --data ...): they work everywhere.
    .configureHelp({ showGlobalOptions: true });

  // jq (jq-wasm) is loaded only when --jq is given, and its expression compiled before the command does anything.
  program.hook('preAction', async () => {
    const expression = ctx.globals.jq;
    if (expression !== undefined) ctx.output.useJq(await loadJqFilter(expression));
  });

  registerSend(program, ctx);
  registerMessages(program, ctx);
  registerChats(program, ctx);
  registerFiles(program, ctx);
  registerWorkspace(program, ctx);
  registerSim(program, ctx);
  registerWebhooks(program, ctx);
  registerWebhooksListen(program, ctx);
  registerServe(program, ctx);
  registerDev(program, ctx);
  registerAdmin(program, ctx);
  registerPartner(program, ctx);
  registerLogin(program, ctx);
  registerLogout(program, ctx);
  registerStatus(program, ctx);
  registerProfile(program, ctx);
  program
    .command('completion')
    .argument('<shell>', COMPLETION_SHELLS.join(' | '))
    .description('print a shell completion script, e.g. `eval "$(svc completion bash)"`')
    .action((shell: string) => ctx.io.stdout(completionScript(shell)));
  addHelpExamples(program);
  return program;
}
