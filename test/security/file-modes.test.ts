import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/client/config.js';
import { createClient } from '../../src/client/create-client.js';
import { openEngine } from '../../src/runtime/open-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { runSvc, tempDir } from '../support/run-cli.js';
import { testEngine } from '../support/test-engine.js';

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);

// With umask 0 every file would be world-readable unless svc asks for owner-only modes itself.
let savedUmask = 0;
beforeEach(() => {
  savedUmask = process.umask(0);
});
afterEach(() => {
  process.umask(savedUmask);
});

describe('database files', () => {
  it('openEngine: a fresh data directory is 0700 (with its missing parents) and svc.db is 0600', async () => {
    const root = tempDir('svc-modes-');
    const dataDir = join(root, 'nested', 'data');
    const engine = await openEngine({ dataDir });
    try {
      expect(mode(join(root, 'nested'))).toBe('700');
      expect(mode(dataDir)).toBe('700');
      expect(mode(join(dataDir, 'svc.db'))).toBe('600');
    } finally {
      await engine.close();
    }
  });

  it('openEngine: the WAL and shared-memory files made by writes are 0600 too', async () => {
    const dataDir = join(tempDir('svc-modes-'), 'data');
    const engine = await openEngine({ dataDir });
    try {
      await engine.admin.createWorkspace({ name: 'W' });
      const sidecars = ['svc.db-wal', 'svc.db-shm'].map((name) => join(dataDir, name)).filter((path) => existsSync(path));
      expect(sidecars.length).toBeGreaterThan(0);
      for (const path of sidecars) expect([path, mode(path)]).toEqual([path, '600']);
    } finally {
      await engine.close();
    }
  });

  it('openEngine: an existing world-readable svc.db is tightened to 0600 when opened', async () => {
    const dataDir = tempDir('svc-modes-');
    const file = join(dataDir, 'svc.db');
    // A real instance (an empty file is refused as a database whose data is gone), then opened up by hand.
    await (await openEngine({ dataDir })).close();
    chmodSync(file, 0o644);
    const engine = await openEngine({ dataDir });
    await engine.close();
    expect(mode(file)).toBe('600');
  });

  it('svc workspace (local engine): SVC_HOME created on first use is 0700 with svc.db 0600', async () => {
    const home = join(tempDir('svc-modes-'), 'home', 'svc');
    const run = await runSvc(['workspace', '--json'], { io: { createClient }, env: { SVC_HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    expect(mode(home)).toBe('700');
    expect(mode(join(home, 'svc.db'))).toBe('600');
  });
});

describe('profile file', () => {
  it('svc login: the profile file holding the token is 0600', async () => {
    const t = await testEngine();
    const app = buildServer({ engine: t.engine, rateLimitPerMinute: 0 });
    await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const configDir = join(tempDir('svc-modes-'), 'config');
      const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api`;
      const run = await runSvc(['login', '--base-url', baseUrl, '--token', t.local.token], { io: { createClient }, env: { SVC_CONFIG_DIR: configDir } });
      expect(run.code, run.stderr).toBe(0);
      const path = new ProfileStore({ SVC_CONFIG_DIR: configDir }).path;
      expect(existsSync(path)).toBe(true);
      expect(mode(path)).toBe('600');
    } finally {
      await app.close();
      await t.engine.close();
    }
  });

  it('ProfileStore.save: a profile file made world-readable by hand is tightened to 0600 on the next save', () => {
    const configDir = tempDir('svc-modes-');
    mkdirSync(configDir, { recursive: true });
    const store = new ProfileStore({ SVC_CONFIG_DIR: configDir });
    store.save('default', { base_url: 'http://x/api' });
    chmodSync(store.path, 0o644);
    store.save('default', { token: 'svc_secret' });
    expect(mode(store.path)).toBe('600');
  });

  it('svc login --partner: the profile holding the Partner Secret is 0600', async () => {
    const home = tempDir('svc-modes-');
    const engine = await openEngine({ dataDir: home });
    const partner = await engine.admin.createPartner({ name: 'P' });
    await engine.close();
    const configDir = join(tempDir('svc-modes-'), 'config');
    const env = { SVC_HOME: home, SVC_CONFIG_DIR: configDir, SVC_PARTNER_SECRET: partner.partner_secret };
    const run = await runSvc(['login', '--partner', '--partner-id', partner.partner_id], { io: { createClient }, env });
    expect(run.code, run.stderr).toBe(0);
    const store = new ProfileStore({ SVC_CONFIG_DIR: configDir });
    expect(store.get('default')?.partner_secret).toBe(partner.partner_secret);
    expect(mode(store.path)).toBe('600');
  });
});
