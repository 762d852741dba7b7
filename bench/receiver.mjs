// A webhook receiver in a process of its own (`node bench/receiver.mjs`), for the bench: answers 200 at once,
// or holds requests while its gate is closed. Control: POST /__gate/open | /__gate/close, POST /__reset,
// GET /__stats -> {count, first_ms, last_ms, opened_ms} (epoch ms), GET /__arrivals -> {text: arrival epoch ms}.
import { createServer } from 'node:http';

let open = process.argv.includes('--closed') ? false : true;
let held = [];
let stats = { count: 0, first_ms: null, last_ms: null, opened_ms: null };
let arrivals = {};

const answer = (res) => res.end('ok');
const server = createServer((req, res) => {
  if (req.url.startsWith('/__')) {
    req.resume();
    if (req.url === '/__gate/open') {
      open = true;
      stats.opened_ms = Date.now();
      for (const r of held.splice(0)) answer(r);
    } else if (req.url === '/__gate/close') open = false;
    else if (req.url === '/__reset') {
      stats = { count: 0, first_ms: null, last_ms: null, opened_ms: stats.opened_ms };
      arrivals = {};
    } else if (req.url === '/__arrivals') return res.end(JSON.stringify(arrivals));
    return res.end(JSON.stringify(stats));
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    stats.count += 1;
    stats.first_ms ??= now;
    stats.last_ms = now;
    // Events of incoming messages carry the text the loader chose; it names the request for the latency.
    const text = /"text":"(lat-[^"]+)"/.exec(Buffer.concat(chunks).toString())?.[1];
    if (text !== undefined) arrivals[text] ??= now;
    if (open) answer(res);
    else held.push(res);
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
