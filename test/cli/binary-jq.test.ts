/**
 * `--jq` in the built binary: jq-wasm (and its .wasm file) must be found from the esbuild bundle, and must be
 * loaded only when `--jq` is given, so that `svc --version` and every other command start as fast as before.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BIN, ProcessSandbox } from '../support/svc-process.js';

describe('svc --jq (spawned)', () => {
  let box: ProcessSandbox;
  beforeEach(() => {
    box = new ProcessSandbox();
  });
  afterEach(() => box.cleanup());

  it('filters a result from the bundle', async () => {
    await box.ok(['sim', 'connect', '--phone', '+15550001234']);
    expect((await box.ok(['accounts', 'list', '--jq', '.items[] | select(.is_default_sender) | .phone'])).stdout).toBe('+15550001234\n');
    const bad = await box.run(['workspace', '--jq', '.[']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('invalid --jq expression');
  });

  it('loads jq-wasm only when --jq is given', () => {
    // A module hook that writes down every module the process resolves.
    const dir = box.tempDir('svc-loads-');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      "import { appendFileSync } from 'node:fs';\n" +
        'export async function resolve(specifier, context, next) {\n' +
        '  const result = await next(specifier, context);\n' +
        '  appendFileSync(process.env.SVC_TEST_LOAD_LOG, `${result.url}\\n`);\n' +
        '  return result;\n' +
        '}\n',
    );
    writeFileSync(join(dir, 'register.mjs'), "import { register } from 'node:module';\nregister(new URL('./hooks.mjs', import.meta.url));\n");
    const loaded = (args: string[], log: string): string => {
      const env = { ...box.env(), SVC_TEST_LOAD_LOG: join(dir, log) };
      writeFileSync(env.SVC_TEST_LOAD_LOG, '');
      const run = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], { env, encoding: 'utf8', timeout: 20_000 });
      expect(run.status, run.stderr).toBe(0);
      return readFileSync(env.SVC_TEST_LOAD_LOG, 'utf8');
    };
    const version = loaded(['--version'], 'version.log');
    expect(version).toContain('/dist/bundle/main.js');
    expect(version).not.toContain('jq-wasm');
    expect(loaded(['completion', 'bash', '--jq', '.'], 'jq.log')).toContain('/node_modules/jq-wasm/');
  });
});
