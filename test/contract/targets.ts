/**
 * The two implementations the contract suite runs against, each on either store: SQLite in a temporary data
 * directory, or a PostgreSQL database of its own on the test server. Setup goes the way support does it:
 * through the engine's admin API on the same database, opened beside the process under test (as
 * `svc admin ...` would be).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SvcClient } from '../../src/client/client.js';
import { createHttpClient } from '../../src/client/http-client.js';
import { openLocalClient } from '../../src/client/local-client.js';
import type { Engine } from '../../src/engine/engine-api.js';
import { openEngine } from '../../src/runtime/open-engine.js';
import { serve } from '../../src/http/serve.js';
import { createTestDatabase } from '../support/postgres.js';
import { uniquePhone, type ContractTarget, type TestWorkspace, type WorkspaceOptions } from './contract-target.js';

/** The stores every suite of the contract runs on. */
export const STORES = ['sqlite', 'postgres'] as const;
export type Store = (typeof STORES)[number];

export interface TargetOptions {
  store?: Store;
}

/**
 * Setup shared by both targets: a data directory (and, for PostgreSQL, a database), an admin engine on it,
 * and the clients to close.
 */
async function baseTarget(label: string, store: Store, open: (token: string) => Promise<SvcClient>) {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-contract-${label}-`));
  const database = store === 'postgres' ? await createTestDatabase(`contract_${label}`) : undefined;
  const databaseUrl = database?.url;
  const admin: Engine = await openEngine({ dataDir, dev: true, ...(databaseUrl === undefined ? {} : { databaseUrl }) });
  const clients: SvcClient[] = [];
  let workspaces = 0;

  const connect = async (token: string): Promise<SvcClient> => {
    const client = await open(token);
    clients.push(client);
    return client;
  };

  const workspace = async (options: WorkspaceOptions = {}): Promise<TestWorkspace> => {
    workspaces += 1;
    const created = await admin.admin.createWorkspace({ name: `Contract ${label} ${workspaces}`, quota: options.quota ?? 100 });
    await admin.admin.updateWorkspace(created.workspace_id, { plan: 'business', send_interval_ms: 0 });
    const client = await connect(created.token);
    const accountPhone = uniquePhone('+1555');
    await client.sim.connect({ phone: accountPhone, full_name: 'Contract sender' });
    return {
      id: created.workspace_id,
      token: created.token,
      client,
      accountPhone,
      newPhone: () => uniquePhone('+4915'),
    };
  };

  const close = async () => {
    for (const client of clients.splice(0)) await client.close();
    await admin.close();
  };
  const remove = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };
  return { dataDir, databaseUrl, admin, connect, workspace, close, remove };
}

/** The embedded engine: every workspace gets its own `openLocalClient` (its own engine and workers). */
export async function makeLocalTarget(options: TargetOptions = {}): Promise<ContractTarget> {
  let where: { dataDir: string; databaseUrl?: string } = { dataDir: '' };
  // Kept open for the whole suite, the client delivers webhooks as a server would (a CLI command leaves them).
  const base = await baseTarget('local', options.store ?? 'sqlite', (token) => openLocalClient({ ...where, token, deliverWebhooks: true }));
  where = { dataDir: base.dataDir, ...(base.databaseUrl === undefined ? {} : { databaseUrl: base.databaseUrl }) };
  return {
    workspace: base.workspace,
    connect: base.connect,
    // No server runs: check the pre-signed link where a server would, in the engine of the same database.
    async download(url) {
      const parsed = new URL(url);
      const uid = decodeURIComponent(parsed.pathname.replace(/^\/files\//, ''));
      const file = await base.admin.download(uid, Number(parsed.searchParams.get('expires')), parsed.searchParams.get('signature') ?? '');
      return { mimetype: file.mimetype, content: file.content };
    },
    async close() {
      await base.close();
      await base.remove();
    },
  };
}

/** Something between the clients and the server (a recording proxy): its URL for a server URL. */
export type Interpose = (serverUrl: string) => Promise<{ url: string; close(): Promise<void> }>;

/** `svc serve` on 127.0.0.1 port 0, and HTTP clients pointing at its `/api` (through `interpose`, if given). */
export async function makeHttpTarget(interpose?: Interpose, options: TargetOptions = {}): Promise<ContractTarget> {
  let apiBase = '';
  const base = await baseTarget('http', options.store ?? 'sqlite', async (token) => createHttpClient({ baseUrl: apiBase, token }));
  const server = await serve({ port: 0, host: '127.0.0.1', dataDir: base.dataDir, databaseUrl: base.databaseUrl, dev: true, log: () => undefined });
  const between = interpose === undefined ? undefined : await interpose(server.url);
  apiBase = `${between?.url ?? server.url}/api`;
  return {
    workspace: base.workspace,
    connect: base.connect,
    async download(url) {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`download answered ${response.status}`);
      return { mimetype: response.headers.get('content-type') ?? '', content: Buffer.from(await response.arrayBuffer()) };
    },
    async close() {
      await base.close();
      await between?.close();
      await server.close();
      await base.remove();
    },
  };
}
