// `startSandbox()` start time, measured inside a process of its own (what a test suite pays per sandbox):
// `node bench/sandbox-start.mjs RUNS` prints JSON with each start-to-ready time in ms (the first is the cold one).
import { startSandbox } from 'svc/testing';

const runs = Number(process.argv[2] ?? 10);
const times = [];
for (let i = 0; i < runs; i += 1) {
  const began = performance.now();
  const sandbox = await startSandbox();
  times.push(performance.now() - began);
  await sandbox.stop();
}
console.log(JSON.stringify(times));
