// CLI start-up: `svc --version` and a local `svc send --no-wait`, beside `node -e 0`, same run; and how long
// `startSandbox()` of svc/testing takes to be ready.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { percentile } from './lib.mjs';

function timeRuns(args, env, runs) {
  const times = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { env: { ...process.env, ...env }, encoding: 'utf8' });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`);
  }
  return { mean_ms: round(times.reduce((a, b) => a + b, 0) / runs), p50_ms: round(percentile(times, 50)), runs };
}

const round = (n) => Math.round(n * 10) / 10;

/** Measures start-up of the CLI against a bare node process. */
export function measureStartup(svc, runs = 30) {
  const home = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
  try {
    const env = { SVC_HOME: home, SVC_CONFIG_DIR: home, NO_COLOR: '1' };
    spawnSync(process.execPath, [svc, 'send', '--phone', '+14155550123', '--text', 'warm-up'], { env: { ...process.env, ...env } });
    const sandbox = JSON.parse(spawnSync(process.execPath, [join(import.meta.dirname, 'sandbox-start.mjs'), String(runs)], { encoding: 'utf8' }).stdout);
    return {
      sandbox_start: { cold_ms: round(sandbox[0]), warm_p50_ms: round(percentile(sandbox.slice(1), 50)), runs },
      node_e_0: timeRuns(['-e', '0'], env, runs),
      svc_version: timeRuns([svc, '--version'], env, runs),
      svc_send_local_no_wait: timeRuns([svc, 'send', '--phone', '+14155550123', '--text', 'Hi', '--no-wait', '--json'], env, runs),
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
