// The mixed load of the delivery bench, in a process of its own: `node bench/mixed-loader.mjs BASE TOKENS RATE SECONDS`
// (TOKENS: comma-separated workspace tokens; each workspace has the accounts ACCOUNTS lists). At RATE requests a
// second for SECONDS: 40 % sends (text `lat-sN`), 30 % incoming messages (`lat-iN`), 30 % chat list reads; the
// receiver timestamps the first webhook naming each text, spread over the workspaces. At most 256 requests in flight. Prints JSON.
import { Agent, request } from 'undici';

const [base, tokenList, rate, seconds] = [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
const tokens = tokenList.split(',');
const accounts = (process.env.ACCOUNTS ?? '').split(',');
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
const sent = {};
// When each send and incoming message was answered (its commit): splits a webhook's latency into answer and delivery.
const answered = {};
let requests = 0;
let non2xx = 0;
let errors = 0;
let inFlight = 0;

async function fire(i) {
  const token = tokens[i % tokens.length];
  const ws = i % tokens.length;
  const kind = i % 10 < 4 ? 'send' : i % 10 < 7 ? 'incoming' : 'read';
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let path = '/api/chats';
  let body;
  let text;
  if (kind === 'send') {
    path = '/api/messages';
    text = `lat-s${i}`;
    body = JSON.stringify({ phone: `+1415${String(5_000_000 + (i % 5000))}`, text });
    sent[text] = Date.now();
  } else if (kind === 'incoming') {
    path = '/sim/messages';
    text = `lat-i${i}`;
    body = JSON.stringify({ from: `+4915${String(100_000_000 + (i % 5000))}`, to: accounts[ws], text });
    sent[text] = Date.now();
  }
  inFlight += 1;
  try {
    const res = await request(`${base}${path}`, { method: body === undefined ? 'GET' : 'POST', body, headers, dispatcher: agent });
    await res.body.text();
    if (text !== undefined) answered[text] = Date.now();
    requests += 1;
    if (res.statusCode >= 300) non2xx += 1;
  } catch {
    errors += 1;
  } finally {
    inFlight -= 1;
  }
}

const started = Date.now();
const pending = [];
let issued = 0;
while (Date.now() - started < seconds * 1000) {
  const due = Math.floor(((Date.now() - started) / 1000) * rate);
  while (issued < due && inFlight < 256) pending.push(fire(issued++));
  await new Promise((r) => setTimeout(r, 5));
}
await Promise.all(pending);
await agent.close();
console.log(JSON.stringify({ issued, requests, non_2xx: non2xx, errors, achieved_per_second: Math.round(issued / seconds), sent, answered }));
