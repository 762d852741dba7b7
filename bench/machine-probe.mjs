// How this machine treats code that has not run for a while: `node bench/machine-probe.mjs`, and the first thing
// `npm run bench` measures (its `machine.cold_code`). Times one short piece of work (5 sha256 rounds, about 10 µs
// when warm) right after the core spent N ms on something else (a spin, so the process never sleeps), and gives
// the median for each N with the steal time /proc/stat counted meanwhile. Where nothing else takes a core's caches,
// the piece should cost about the same whatever N; on the shared virtual machine of 2026-11-30 it cost 5-13 times more
// after 8 ms. A request that wakes several processes (svc, a PostgreSQL backend, the loader) pays that once for
// each, so the same code costs more a request at low rates there: compare machines with this before comparing
// their bench results. Bounded: about 5 s.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { cpuTicks } from './lib.mjs';

const piece = () => {
  let digest = Buffer.alloc(32);
  for (let i = 0; i < 5; i += 1) digest = createHash('sha256').update(digest).digest();
  return digest;
};
const spin = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
/** Steal time of all CPUs so far, in ms. */
const stealMs = () => cpuTicks().steal * 10;

/** `{ rows: [{ other_work_ms, piece_p50_us }], steal_ms }`. */
export function probeMachine() {
  for (let i = 0; i < 2000; i += 1) piece();
  const stealBefore = stealMs();
  const rows = [0, 0.2, 1, 2, 4, 8].map((otherMs) => {
    const times = [];
    for (let i = 0; i < 300; i += 1) {
      spin(otherMs);
      const start = performance.now();
      piece();
      times.push((performance.now() - start) * 1000);
    }
    times.sort((a, b) => a - b);
    return { other_work_ms: otherMs, piece_p50_us: Math.round(times[150] * 10) / 10 };
  });
  return { rows, steal_ms: stealMs() - stealBefore };
}

/** The bench table's row. */
export const machineRow = (probe) => [
  'machine: a 10 µs piece of code after 0 / 1 / 8 ms of other work',
  probe.rows.filter((row) => [0, 1, 8].includes(row.other_work_ms)).map((row) => `${row.piece_p50_us} µs`).join(' / '),
  `steal time meanwhile ${probe.steal_ms} ms`,
  '',
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const probe = probeMachine();
  console.error(probe.rows.map((row) => `after ${row.other_work_ms} ms of other work: ${row.piece_p50_us} µs`).join('\n'));
  console.error(`steal time meanwhile: ${probe.steal_ms} ms`);
  console.log(JSON.stringify(probe));
}
