import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandPath, HELP_EXAMPLES } from '../../src/cli/help-examples.js';
import { buildProgram } from '../../src/cli/program.js';
import { runSvc } from '../support/run-cli.js';

const leaves = (command: Command): Command[] =>
  command.commands.flatMap((sub) => (sub.commands.length === 0 ? [sub] : leaves(sub)));

const program = buildProgram({ io: { stdout: () => {}, stderr: () => {} } } as never, { onCommanderError: () => {} });
const known = (command: Command): Set<string> =>
  new Set([...command.options, ...program.options].flatMap((o) => [o.long, o.short]).filter((f): f is string => f !== undefined));

describe('help', () => {
  it('every command has an example that names it and uses only flags it accepts', () => {
    for (const command of leaves(program)) {
      const path = commandPath(command);
      const examples = HELP_EXAMPLES[path];
      expect(examples, path).toBeDefined();
      for (const example of examples!) {
        const svcCall = example.slice(example.indexOf('svc '));
        expect(svcCall.startsWith(`svc ${path}`), example).toBe(true);
        const flags = svcCall.split(/\s+/).filter((w) => w.startsWith('-') && w !== '-').map((w) => w.split('=')[0]!);
        for (const flag of flags) expect(known(command).has(flag), `${example}: ${flag}`).toBe(true);
      }
    }
  });

  it('subcommand help shows the global options and an example', async () => {
    const run = await runSvc(['webhooks', 'delete', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Global Options:');
    expect(run.stdout).toContain('--base-url <url>');
    expect(run.stdout).toContain('$ svc webhooks delete 3 --yes');
  });
});
