// Send latency on an empty database and on one holding a million messages, measured the same way.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { load, startServer } from './lib.mjs';

/** Fills the workspace's chat history with `count` sent messages, in bulk, through plain SQL (seconds, not hours). */
function fill(dataDir, workspaceId, count) {
  const db = new Database(join(dataDir, 'svc.db'));
  const account = db.prepare('SELECT id FROM messenger_accounts WHERE workspace_id = ? LIMIT 1').get(workspaceId);
  const now = Date.now();
  const insertChat = db.prepare(
    `INSERT INTO chats (workspace_id, messenger_account_id, contact_phone, name, started_by, created_at) VALUES (?, ?, ?, ?, 'workspace', ?)`,
  );
  const insertMessage = db.prepare(
    `INSERT INTO messages (uid, workspace_id, chat_id, messenger_account_id, direction, status, text, credits, created_at, sent_at)
     VALUES (?, ?, ?, ?, 'sent', 'Sent', 'history', 1, ?, ?)`,
  );
  const chats = 10_000;
  db.transaction(() => {
    const chatIds = [];
    for (let c = 0; c < chats; c += 1) {
      const phone = `+1650${String(c).padStart(7, '0')}`;
      chatIds.push(Number(insertChat.run(workspaceId, account.id, phone, phone, now).lastInsertRowid));
    }
    for (let i = 0; i < count; i += 1) {
      const uid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      insertMessage.run(uid, workspaceId, chatIds[i % chats], account.id, now, now);
    }
  })();
  db.close();
}

async function measure(svc, dataDir, token, seconds, connections) {
  const server = await startServer(process.execPath, [svc, 'serve', '--port', '0', '--data', dataDir, '--rate-limit', '100000000']);
  try {
    return await load({
      url: `${server.url}/api/messages`, seconds, connections,
      body: JSON.stringify({ phone: '+14155550123', text: 'Hello' }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    });
  } finally {
    await server.stop();
  }
}

/** Runs the same load against an empty database and a filled one. */
export async function measureLatencyVsSize(svc, { seconds, connections, messages = 1_000_000 }) {
  const results = {};
  for (const [label, count] of [['empty', 0], [`${messages}_messages`, messages]]) {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-bench-size-'));
    try {
      const created = JSON.parse(execFileSync(process.execPath, [svc, 'admin', 'workspace', 'create', '--data', dataDir, '--name', 'Size', '--quota', '100000000', '--json'], { encoding: 'utf8' }));
      execFileSync(process.execPath, [svc, 'sim', 'connect', '--phone', '+15550008888', '--data', dataDir, '--token', created.token]);
      const started = Date.now();
      if (count > 0) fill(dataDir, created.workspace_id, count);
      const fillSeconds = Math.round((Date.now() - started) / 1000);
      results[label] = { ...(await measure(svc, dataDir, created.token, seconds, connections)), fill_seconds: fillSeconds };
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return results;
}
