// POST /api/messages: svc serve (durable queue) against a bare node:http server answering the same request,
// both loaded by wrk from its own process, one after the other in the same run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peakRssMiB, startServer } from './lib.mjs';
import { wrk } from './wrk.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const round = (n) => Math.round(n * 100) / 100;
const body = JSON.stringify({ phone: '+14155550123', text: 'Hello from the bench' });

/** A workspace with a connected sim account in a fresh data directory, made with the CLI as an operator would. */
export function prepareWorkspace(svc, target) {
  const created = JSON.parse(
    execFileSync(process.execPath, [svc, 'admin', 'workspace', 'create', ...target, '--name', 'Bench', '--quota', '100000000', '--json'], { encoding: 'utf8' }),
  );
  execFileSync(process.execPath, [svc, 'sim', 'connect', '--phone', `+1555${String(Date.now()).slice(-7)}`, ...target, '--token', created.token]);
  return created;
}

/** Loads one running server with the send request; returns wrk's summary and the server's peak RSS. */
export async function loadSends(server, token, { seconds, connections }) {
  const result = await wrk({
    url: `${server.url}/api/messages`, seconds, connections, body,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  return { ...result, peak_rss_mib: peakRssMiB(server.pid) };
}

/** Bare node:http first, then svc serve on SQLite, with the same wrk settings. */
export async function measurePostMessages(svc, { seconds, connections }) {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const created = prepareWorkspace(svc, ['--data', dataDir]);
    const bare = await startServer(process.execPath, [join(root, 'bench', 'bare-server.mjs')]);
    const bareResult = await wrk({ url: `${bare.url}/api/messages`, seconds, connections, body, headers: { 'content-type': 'application/json' } });
    const bareRss = peakRssMiB(bare.pid);
    await bare.stop();
    const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', '100000000']);
    const svcResult = await loadSends(server, created.token, { seconds, connections });
    await server.stop();
    return {
      bare_node_http: { ...bareResult, peak_rss_mib: bareRss },
      svc: svcResult,
      ratio: round(svcResult.requests_per_second / bareResult.requests_per_second),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
