// Helpers shared by the bench scripts: child servers on loopback and bounded autocannon runs.
import { spawn } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { request } from 'undici';

/** Starts a child process and resolves with its URL once it prints `listening on URL`. */
export function startServer(command, args, env = {}) {
  // For a look inside each node server: BENCH_CPU_PROF=DIR writes its V8 CPU profile into DIR;
  // BENCH_NODE_FLAGS='--a --b' starts it with those runtime flags (a flag is judged like a change: A/B rounds);
  // BENCH_SERVER_LOG=FILE appends its output to FILE (what flags such as --trace-gc print).
  const { BENCH_CPU_PROF: profileDir, BENCH_NODE_FLAGS: nodeFlags, BENCH_SERVER_LOG: log } = process.env;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const flags = command === process.execPath ? [...(nodeFlags?.split(' ').filter(Boolean) ?? []), ...profile] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...flags, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 20_000);
    const keep = (chunk) => {
      if (log) appendFileSync(log, chunk);
      out += chunk;
    };
    const onData = (chunk) => {
      keep(chunk);
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], child, pid: child.pid, stop: () => stopChild(child) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', keep);
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** One bounded load run: `seconds` long, `connections` at once, on loopback only. */
export async function load({ url, seconds, connections, headers, body, method = 'POST' }) {
  const result = await autocannon({ url, method, duration: seconds, connections, headers, body });
  return {
    requests_per_second: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    total_requests: result.requests.total,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

/** The middle value (the mean of the two middle ones for an even count, rounded). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

/** The p-th percentile (nearest rank) of a list of numbers. */
export function percentile(values, p) {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Peak resident memory (VmHWM) of a live process, in MiB, from /proc. */
export function peakRssMiB(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kib / 1024);
  } catch {
    return null;
  }
}

/** CPU time (user + system, every thread) a process has used so far, in ms; 0 for a process that is gone. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
  } catch {
    return 0;
  }
}

/** Every CPU's time so far by state, in 10 ms ticks (the first line of /proc/stat). */
export function cpuTicks() {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { user, nice, system, idle, iowait, irq, softirq, steal };
}

/** Nanoseconds each task (thread) on the machine has spent ready to run but waiting for a core, by task id. */
function runQueueWaitNs() {
  const waits = new Map();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) waits.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]));
    } catch {
      // The process or thread ended meanwhile.
    }
  }
  return waits;
}

/**
 * The whole machine from now until the returned function is called: `busyPercent`, the share of the cores busy
 * (every process, from /proc/stat), and `tasksWaiting`, how many tasks were on average ready to run but waiting
 * for a core (from every thread's schedstat; a task that started meanwhile counts from its start, one that ended
 * is left out). A latency measured with tasks waiting is partly queueing for a core: on 2 cores a PostgreSQL
 * replica's mixed load once had 2 waiting on average, and each round trip waits for two processes to run.
 */
export function machineBusy() {
  const read = () => {
    const { user, nice, system, idle, iowait, irq, softirq, steal } = cpuTicks();
    return { busy: user + nice + system + irq + softirq + steal, idle: idle + iowait };
  };
  const before = read();
  const waitsBefore = runQueueWaitNs();
  const startedMs = performance.now();
  return () => {
    const after = read();
    const busy = after.busy - before.busy;
    let waitedNs = 0;
    for (const [tid, ns] of runQueueWaitNs()) waitedNs += ns - (waitsBefore.get(tid) ?? 0);
    return {
      busyPercent: Math.round((100 * busy) / Math.max(1, busy + after.idle - before.idle)),
      tasksWaiting: Math.round(waitedNs / 1e6 / Math.max(1, performance.now() - startedMs) * 100) / 100,
    };
  };
}

/** A JSON call to a bench server or receiver: the parsed body (null for an empty or `ok` one); throws on >= 300. */
export const call = async (url, { method = 'GET', token, body } = {}) => {
  const res = await request(url, {
    method, body: body === undefined ? null : JSON.stringify(body),
    headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${text}`);
  return text === '' || text === 'ok' ? null : JSON.parse(text);
};

/** Polls `check` every 50 ms until it returns a value or `deadline` (performance.now()) passes. */
export async function waitFor(check, deadline) {
  for (;;) {
    const value = await check();
    if (value !== undefined || performance.now() > deadline) return value;
    await new Promise((r) => setTimeout(r, 50));
  }
}
