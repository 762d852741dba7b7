/**
 * Set-up, bursts and database probes shared by the fault tests (`fault-loop`, `slow-receiver`). Processes,
 * temporary directories and read-only database access come from `svc-process.ts`.
 */
import { api, openDatabaseReadOnly, type ProcessSandbox, type SvcServer } from './svc-process.js';
import type { GoodDelivery, GoodReceiver } from './fault-receivers.js';

export const ACCOUNTS = ['+15550005001', '+15550005002', '+15550005003'];
/** Accepted (it looks like a phone), then refused by the network as not a valid number. */
export const INVALID = '+1234';
export const UNREACHABLE = '+4915100000667';
/** Events every receiver subscribes to (the good one and each hostile one). */
export const GOOD_EVENTS = ['message:sent:new', 'message:new'] as const;

/** How every `svc serve` of these tests runs: http to 127.0.0.1 allowed, quick retries, a 1 s send lease. */
export const SERVE = { env: { SVC_SEND_LEASE_MS: '1000' }, args: ['--dev', '--webhook-retry-delays', '1,1'] };

export interface FaultWorkspace {
  dataDir: string;
  ws: number;
  token: string;
  /** Subscription ids of the good receiver. */
  goodSubscriptions: number[];
}

/**
 * A data dir with a Business workspace (`quota`, `sendIntervalMs` between sends of one account), the sim
 * accounts connected, UNREACHABLE marked, the good receiver and every hostile URL subscribed to GOOD_EVENTS. Returns the running server it used for the set-up.
 */
export async function setUpWorkspace(
  box: ProcessSandbox,
  opts: { quota: number; sendIntervalMs: number; accounts: string[]; good: GoodReceiver; hostileUrls: string[] },
): Promise<FaultWorkspace & { server: SvcServer }> {
  const dataDir = box.tempDir('svc-proc-fault-');
  const { workspace_id: ws, token } = await box.createWorkspace(dataDir, 'Faults', opts.quota);
  await box.ok(['admin', 'workspace', 'update', String(ws), '--data', dataDir, '--plan', 'business', '--send-interval', String(opts.sendIntervalMs)]);
  const server = await box.serve(dataDir, SERVE);
  const must = async (method: string, path: string, body: unknown) => {
    const res = await api<{ data: { id: number; secret: string } }>(server, token, method, path, body);
    if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };
  for (const phone of opts.accounts) await must('POST', '/sim/accounts/connect', { phone });
  await must('PUT', `/sim/numbers/${encodeURIComponent(UNREACHABLE)}/unreachable`, { unreachable: true });
  const goodSubscriptions: number[] = [];
  for (const event_type of GOOD_EVENTS) {
    const created = await must('POST', '/api/webhooks', { event_type, url: `${opts.good.url}/${event_type}` });
    opts.good.secrets.set(`/${event_type}`, created.secret);
    goodSubscriptions.push(created.id);
  }
  for (const url of opts.hostileUrls) {
    for (const event_type of GOOD_EVENTS) await must('POST', '/api/webhooks', { event_type, url: `${url}/${event_type}` });
  }
  return { dataDir, ws, token, goodSubscriptions, server };
}

/** The i-th recipient of burst `round`: every fifth invalid, every fifth unreachable, the rest unique valid numbers. */
export function recipientFor(round: number, i: number, failures = true): string {
  if (failures && i % 5 === 1) return INVALID;
  if (failures && i % 5 === 3) return UNREACHABLE;
  return `+1415${String(round * 1000 + i).padStart(7, '0')}`;
}

export interface BurstResult {
  /** uids the server answered 200 for. */
  accepted: string[];
  /** Requests that got no answer (the server died under them). */
  lost: number;
  /** Answers other than 200: never expected. */
  refused: string[];
}

/** `size` concurrent POST /api/messages spread over the accounts; a request the dying server drops is not an error. */
export async function fireBurst(
  server: SvcServer,
  token: string,
  opts: { round: number; size: number; accounts: string[]; failures?: boolean },
): Promise<BurstResult> {
  const result: BurstResult = { accepted: [], lost: 0, refused: [] };
  await Promise.all(
    Array.from({ length: opts.size }, async (_, i) => {
      try {
        const res = await api<{ data: { message_uid: string } }>(server, token, 'POST', '/api/messages', {
          phone: recipientFor(opts.round, i, opts.failures),
          text: `fault ${opts.round}/${i}`,
          messenger_account_phone: opts.accounts[i % opts.accounts.length],
        });
        if (res.status === 200) result.accepted.push(res.body.data.message_uid);
        else result.refused.push(`${res.status} ${JSON.stringify(res.body)}`);
      } catch {
        result.lost += 1;
      }
    }),
  );
  return result;
}

export interface MessageState {
  uid: string;
  status: string;
  created_at: number;
  sent_at: number | null;
}

/** Reads the data dir read-only (the server may be running: WAL readers do not block it). */
export function withDb<T>(dataDir: string, read: (db: ReturnType<typeof openDatabaseReadOnly>) => T): T {
  const db = openDatabaseReadOnly(dataDir);
  try {
    return read(db);
  } finally {
    db.close();
  }
}

export function messageStates(dataDir: string, ws: number): MessageState[] {
  return withDb(dataDir, (db) =>
    db
      .prepare<[number], MessageState>(`SELECT uid, status, created_at, sent_at FROM messages WHERE workspace_id = ? AND direction = 'sent' ORDER BY id`)
      .all(ws),
  );
}

/** Work not finished yet: messages not Sent or Failed, send jobs, and deliveries pending or in flight (good and other). */
export function unfinished(dataDir: string, f: FaultWorkspace): { messages: number; jobs: number; goodDeliveries: number; otherDeliveries: number } {
  return withDb(dataDir, (db) => {
    const count = (sql: string, ...params: number[]) => db.prepare<number[], { n: number }>(sql).get(...params)!.n;
    const subs = f.goodSubscriptions.join(',');
    return {
      messages: count(`SELECT COUNT(*) AS n FROM messages WHERE workspace_id = ? AND direction = 'sent' AND status NOT IN ('Sent', 'Failed')`, f.ws),
      jobs: count(`SELECT COUNT(*) AS n FROM jobs WHERE kind = 'send'`),
      goodDeliveries: count(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subscription_id IN (${subs}) AND status IN ('pending', 'delivering')`),
      otherDeliveries: count(`SELECT COUNT(*) AS n FROM webhook_deliveries WHERE subscription_id NOT IN (${subs}) AND status IN ('pending', 'delivering')`),
    };
  });
}

/** Events of GOOD_EVENTS for Sent messages that the good receiver has not seen yet, as "event uid". */
export function missingEvents(messages: MessageState[], deliveries: GoodDelivery[]): string[] {
  const seen = new Set(deliveries.map((d) => `${d.eventType} ${d.uid}`));
  return messages.filter((m) => m.status === 'Sent').flatMap((m) => GOOD_EVENTS.map((e) => `${e} ${m.uid}`)).filter((key) => !seen.has(key));
}

/** One server run: from spawn to SIGKILL (`end`), or open-ended for the last one. */
export interface Epoch {
  start: number;
  end: number;
}

/**
 * Time from Sent to the first `message:sent:new` at the good receiver, per message. An event that arrived in
 * the run that sent it is a sample; one that had not arrived when that run was killed is a sample of
 * (kill - sent) only if that already exceeds `boundMs` (it was late regardless); otherwise the kill cut the
 * measurement short and the message is left out (its delivery waited for a dead process's lease).
 */
export function sentToArrival(messages: MessageState[], deliveries: GoodDelivery[], epochs: Epoch[], boundMs: number): number[] {
  const first = new Map<string, number>();
  for (const d of deliveries) {
    const earlier = first.get(d.uid);
    if (d.eventType === 'message:sent:new' && (earlier === undefined || d.at < earlier)) first.set(d.uid, d.at);
  }
  const samples: number[] = [];
  for (const m of messages) {
    if (m.status !== 'Sent' || m.sent_at === null) continue;
    const sentAt = m.sent_at;
    const epoch = [...epochs].reverse().find((e) => e.start <= sentAt);
    if (epoch === undefined) continue;
    const arrived = first.get(m.uid) ?? Infinity;
    if (arrived <= epoch.end) samples.push(Math.max(0, arrived - sentAt));
    else if (epoch.end - sentAt > boundMs) samples.push(epoch.end - sentAt);
  }
  return samples.sort((a, b) => a - b);
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** A small seeded PRNG (mulberry32), so a failing run can be repeated with SVC_FAULT_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
