// Load from wrk (Debian's package), a separate process that shares nothing with the server it measures.
// A Lua script sets the request and prints one JSON summary line when the run ends.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = (method, body, headers, spread, rotate) => `
${spread === undefined ? '' : `local targets = { ${spread.map((t) => `{ ${JSON.stringify(t.hostname)}, ${JSON.stringify(t.port)} }`).join(', ')} }
local next_target = 0
-- Round robin over the replicas: each wrk thread (and its connections) loads the next one.
function setup(thread)
  local target = targets[(next_target % #targets) + 1]
  next_target = next_target + 1
  thread.addr = wrk.lookup(target[1], target[2])[1]
end`}
wrk.method = ${JSON.stringify(method)}
${rotate === undefined ? '' : `local rotating = { ${rotate.values.map((v) => JSON.stringify(v)).join(', ')} }
local turn = 0
-- Each request carries the next value of the ${rotate.header} header (one tenant after another).
${rotate.bodies === undefined ? '' : `local bodies = { ${rotate.bodies.map((v) => JSON.stringify(v)).join(', ')} }`}
function request()
  turn = turn + 1
  wrk.headers[${JSON.stringify(rotate.header)}] = rotating[(turn % #rotating) + 1]
  ${rotate.bodies === undefined ? '' : 'wrk.body = bodies[(turn % #bodies) + 1]'}
  return wrk.format()
end`}
wrk.body = ${JSON.stringify(body ?? '')}
${Object.entries(headers ?? {}).map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`).join('\n')}
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"non_2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
    e.connect + e.read + e.write + e.timeout))
end
`;

/**
 * Runs wrk against `url` for `seconds` with `connections` (one thread) and resolves with its summary.
 * `spreadOver` (origins of replicas serving the same API) gives each of `threads` threads the next one;
 * `rotate` ({ header, values, bodies? }) sets that header (and the body) to the next value on every request.
 */
export function wrk({ url, seconds, connections, method = 'POST', body, headers, threads = 1, spreadOver, rotate }) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-wrk-'));
  const lua = join(dir, 'request.lua');
  writeFileSync(lua, script(method, body, headers, spreadOver?.map((origin) => new URL(origin)), rotate));
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', lua, url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('error', (error) => reject(new Error(`wrk could not run (apt-get install wrk): ${error.message}`)));
    child.on('exit', (code) => {
      rmSync(dir, { recursive: true, force: true });
      const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
      if (code !== 0 || line === undefined) return reject(new Error(`wrk failed (${code}): ${err || out}`));
      const r = JSON.parse(line);
      resolve({
        requests_per_second: Math.round(r.requests / (r.duration_us / 1e6)),
        latency_p50_ms: Math.round(r.p50_us / 10) / 100,
        latency_p99_ms: Math.round(r.p99_us / 10) / 100,
        total_requests: r.requests,
        non_2xx: r.non_2xx,
        errors: r.errors,
      });
    });
  });
}
