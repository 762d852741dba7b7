/**
 * The two implementations the contract suite runs against. Both keep their data in a temporary directory
 * and do their setup the way support does: through the engine's admin API on the same database, opened
 * beside the process under test (as `svc admin ...` would be).
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
import { uniquePhone, type ContractTarget, type TestWorkspace, type WorkspaceOptions } from './contract-target.js';

/** Setup shared by both targets: a data directory, an admin engine on it, and the clients to close. */
async function baseTarget(label: string, open: (token: string) => Promise<SvcClient>) {
  const dataDir = mkdtempSync(join(tmpdir(), `svc-contract-${label}-`));
  const admin: Engine = await openEngine({ dataDir, dev: true });
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
  return { dataDir, admin, connect, workspace, close, remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** The embedded engine: every workspace gets its own `openLocalClient` (its own engine and workers). */
export async function makeLocalTarget(): Promise<ContractTarget> {
  let dataDir = '';
  const base = await baseTarget('local', (token) => openLocalClient({ dataDir, token }));
  dataDir = base.dataDir;
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
      base.remove();
    },
  };
}

/** Something between the clients and the server (a recording proxy): its URL for a server URL. */
export type Interpose = (serverUrl: string) => Promise<{ url: string; close(): Promise<void> }>;

/** `svc serve` on 127.0.0.1 port 0, and HTTP clients pointing at its `/api` (through `interpose`, if given). */
export async function makeHttpTarget(interpose?: Interpose): Promise<ContractTarget> {
  let apiBase = '';
  const base = await baseTarget('http', async (token) => createHttpClient({ baseUrl: apiBase, token }));
  const server = await serve({ port: 0, host: '127.0.0.1', dataDir: base.dataDir, dev: true, log: () => undefined });
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
      base.remove();
    },
  };
}
