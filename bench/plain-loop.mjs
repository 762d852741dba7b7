// The baseline of the delivery bench, in a process of its own: a plain undici POST loop with a fixed number of
// requests in flight into the receiver. `node bench/plain-loop.mjs URL IN_FLIGHT COUNT SECONDS` prints JSON.
import { Agent, request } from 'undici';

const [url, inFlight, count, seconds] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
const body = JSON.stringify({ type: 'message:received:new', timestamp: new Date().toISOString(), data: { text: 'x'.repeat(400) } });
const agent = new Agent({ keepAliveTimeout: 30_000, connections: inFlight });
const deadline = performance.now() + seconds * 1000;
let next = 0;
let done = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: inFlight }, async () => {
    while (next < count && performance.now() < deadline) {
      next += 1;
      const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json' }, dispatcher: agent });
      await res.body.text();
      done += 1;
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
await agent.close();
console.log(JSON.stringify({ posted: done, seconds: elapsed, per_second: done / elapsed }));
