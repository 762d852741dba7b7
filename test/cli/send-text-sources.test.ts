import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeClient } from '../support/fake-client.js';
import { runSvc, tempDir } from '../support/run-cli.js';

/** Standard input as the real one arrives: in pieces. */
async function* chunksOf(text: string): AsyncIterable<Uint8Array> {
  yield Buffer.from(text);
}

const sent = (client: ReturnType<typeof fakeClient>) => client.calls.filter((c) => c.method === 'sendToPhone').map((c) => c.args[0]);

describe('svc send: where the text comes from', () => {
  it('--text - reads standard input, without its trailing newline', async () => {
    const client = fakeClient();
    const run = await runSvc(['send', '--phone', '+14155550123', '--text', '-', '--no-wait'], { client, io: { stdin: () => chunksOf('line one\nline two\n') } });
    expect(run.code).toBe(0);
    expect(sent(client)).toEqual([{ phone: '+14155550123', text: 'line one\nline two' }]);
  });

  it('--text-file reads a file; a missing file or an empty text is a usage error and nothing is sent', async () => {
    const dir = tempDir();
    const path = join(dir, 'note.txt');
    writeFileSync(path, 'from a file\r\n');
    const client = fakeClient();
    expect((await runSvc(['send', '--phone', '+14155550123', '--text-file', path, '--no-wait'], { client })).code).toBe(0);
    expect(sent(client)).toEqual([{ phone: '+14155550123', text: 'from a file' }]);

    const none = fakeClient();
    const missing = await runSvc(['send', '--phone', '+14155550123', '--text-file', join(dir, 'nope.txt')], { client: none });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('ENOENT');
    const empty = await runSvc(['send', '--phone', '+14155550123', '--text', '-'], { client: none, io: { stdin: () => chunksOf('\n') } });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('standard input is empty');
    const both = await runSvc(['send', '--phone', '+14155550123', '--text', 'a', '--text-file', path], { client: none });
    expect(both.code).toBe(2);
    expect(none.calls).toEqual([]);
  });
});
