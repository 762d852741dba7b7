import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { fakeClient } from '../support/fake-client.js';
import { interrupts, runSvc, tempDir } from '../support/run-cli.js';

// `--jq EXPR` as gh has it: the JSON result filtered by jq, strings raw and other values as JSON, one a line.

describe('--jq', () => {
  it('prints strings raw and other values as one line of JSON each; --jq alone implies --json', async () => {
    expect((await runSvc(['workspace', '--jq', '.name'])).stdout).toBe('Local\n');
    expect((await runSvc(['workspace', '--jq', '.messaging_quota | {total, used}'])).stdout).toBe('{"total":1000,"used":3}\n');
    expect((await runSvc(['workspace', '--jq', '.id, .name, .seats_purchased > 0, null'])).stdout).toBe('1\nLocal\ntrue\nnull\n');
    expect((await runSvc(['chats', 'list', '--jq', '.items[] | [.id, .name]'])).stdout).toBe('[7,"Alice"]\n');
    // Nothing to print is nothing, not an empty line; --json with --jq is the same as --jq; --jq=EXPR works.
    expect((await runSvc(['workspace', '--jq', 'empty'])).stdout).toBe('');
    expect((await runSvc(['--json', 'workspace', '--jq', '.name'])).stdout).toBe('Local\n');
    expect((await runSvc(['workspace', '--jq=.plan'])).stdout).toBe('standard\n');
  });

  it('a bad expression is a usage error with jq\'s message, before the command does anything', async () => {
    const client = fakeClient();
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', 'Hi', '--jq', '.message_uid | ['], { client });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: invalid --jq expression: syntax error, unexpected end of file');
    expect(run.stderr).toContain('hint: see the jq manual');
    expect(client.calls).toEqual([]);
    // With --json the error is the usual JSON line.
    const json = await runSvc(['workspace', '--json', '--jq', 'nosuchfunction'], { client });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'usage_error', message: expect.stringContaining('nosuchfunction/0 is not defined') } });
  });

  it('an expression that fails on the result is a usage error that says the command itself succeeded', async () => {
    const run = await runSvc(['workspace', '--jq', '.name | tonumber']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--jq failed on the result (the command itself succeeded): string ("Local") cannot be parsed as a number');
  });

  it('filters each line of a stream (webhooks listen) and the --print-secret result', async () => {
    const env = { SVC_HOME: tempDir('svc-home-') };
    const secret = await runSvc(['webhooks', 'listen', '--print-secret', '--jq', '.secret'], { env, io: { createClient } });
    expect(secret.stdout).toMatch(/^whsec_\S+\n$/);

    const signals = interrupts();
    let streamed = '';
    const listening = runSvc(['webhooks', 'listen', '--jq', 'select(.type == "event") | .event_type'], {
      env,
      io: {
        createClient,
        onInterrupt: signals.onInterrupt,
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        stdout: (text) => void (streamed += text),
      },
    });
    // The session opens asynchronously: trigger until the listener has printed the event (bounded).
    for (let i = 0; i < 50 && !streamed.includes('chat:assigned'); i++) {
      await runSvc(['trigger', 'chat:assigned'], { env, io: { createClient } });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    signals.fire('SIGINT');
    const run = await listening;
    expect(run.code).toBe(130);
    expect(streamed.split('\n').filter((line) => line !== '')[0]).toBe('chat:assigned');
    // Only what the filter selected: no ready object, no other lines.
    expect(streamed).not.toContain('{');
  });
});
