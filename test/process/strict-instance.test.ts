/**
 * A data directory (or database) that a server without --dev has served stays strict for every process:
 * local commands refuse loopback webhook URLs and never dial the loopback address of a tenant's subscription,
 * `svc serve --dev` is refused, and `svc admin instance` shows and changes the rule. Built binary, both stores.
 */
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { STORES } from '../contract/targets.js';
import { createTestDatabase } from '../support/postgres.js';
import { api, ProcessSandbox } from '../support/svc-process.js';
import { loopbackListener } from '../support/loopback-listener.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

for (const store of STORES) {
  describe(`a strictly served instance (${store})`, () => {
    it('stays strict for local commands, refuses serve --dev, and only `svc admin instance --dev-urls` lifts it', { timeout: 60_000 }, async () => {
      const box = new ProcessSandbox();
      cleanups.push(() => box.cleanup());
      const dataDir = box.tempDir();
      const where = ['--data', dataDir];
      let database: string | undefined;
      if (store === 'postgres') {
        const db = await createTestDatabase('strict_instance');
        cleanups.push(() => db.drop());
        database = db.url;
        where.push('--database', db.url);
      }
      const listener = await loopbackListener(cleanups);
      const { token } = JSON.parse((await box.ok(['admin', 'workspace', 'create', '--name', 'Tenant', ...where, '--json'])).stdout) as { token: string };
      // A never-served sandbox allows loopback URLs (svc webhooks listen and local testing rely on it).
      expect(JSON.parse((await box.ok(['admin', 'instance', ...where, '--json'])).stdout)).toMatchObject({ webhook_urls: 'local' });
      const server = await box.serve(dataDir, database === undefined ? {} : { database });
      const created = await api<{ data: { id: number } }>(server, token, 'POST', '/api/webhooks', {
        event_type: 'message:received:new',
        url: `https://hooks.example.test:${listener.port}/h`,
      });
      expect(created.status).toBe(200);
      await box.stop(server);

      // Local commands on the directory: no loopback subscription, no delivery reaching loopback.
      const refused = await box.run(['webhooks', 'create', '--event', 'message:new', '--url', `http://127.0.0.1:${listener.port}/h`, '--token', token, ...where]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/not a public address|must use https/);
      await box.ok(['trigger', 'message:received:new', '--token', token, ...where]);
      await box.ok(['workspace', '--token', token, ...where]);
      expect(listener.connections()).toBe(0);

      // A server with --dev (or svc dev) would deliver to private addresses: refused, with the way out.
      const dev = await box.run(['serve', '--dev', '--port', '0', ...where]);
      expect(dev.code).not.toBe(0);
      expect(dev.stderr).toMatch(/strict/);
      expect(dev.stderr).toMatch(/svc admin instance --dev-urls/);

      const status = JSON.parse((await box.ok(['admin', 'instance', ...where, '--json'])).stdout) as Record<string, unknown>;
      expect(status).toMatchObject({ webhook_urls: 'strict' });
      expect(JSON.parse((await box.ok(['admin', 'instance', '--dev-urls', ...where, '--json'])).stdout)).toMatchObject({ webhook_urls: 'local' });
      expect(JSON.parse((await box.ok(['admin', 'instance', '--strict', '--webhook-retry-delays', '1,2', ...where, '--json'])).stdout)).toEqual({
        webhook_urls: 'strict',
        webhook_retry_delays_ms: [1000, 2000],
        webhook_retry_delays_default: false,
      });
      const contradiction = await box.run(['admin', 'instance', '--strict', '--dev-urls', ...where]);
      expect(contradiction.code).toBe(2);
      const badDelays = await box.run(['admin', 'instance', '--webhook-retry-delays', '1', ...where]);
      expect(badDelays.code).not.toBe(0);
      expect(badDelays.stderr).toMatch(/expected 2 retry delays/);
      expect(listener.connections()).toBe(0);
    });
  });
}

describe('the instance rules travel with the data', () => {
  it('`svc admin copy` keeps the strict mark and the retry schedule; `svc admin instance` creates no instance', { timeout: 60_000 }, async () => {
    const box = new ProcessSandbox();
    cleanups.push(() => box.cleanup());
    const dataDir = box.tempDir();
    await box.ok(['admin', 'workspace', 'create', '--name', 'Moving', '--data', dataDir]);
    await box.ok(['admin', 'instance', '--strict', '--webhook-retry-delays', '2,3', '--data', dataDir]);
    const db = await createTestDatabase('strict_copy');
    cleanups.push(() => db.drop());
    await box.ok(['admin', 'copy', '--data', dataDir, '--database', db.url]);
    expect(JSON.parse((await box.ok(['admin', 'instance', '--database', db.url, '--json'])).stdout)).toEqual({
      webhook_urls: 'strict',
      webhook_retry_delays_ms: [2000, 3000],
      webhook_retry_delays_default: false,
    });

    const typo = `${dataDir}-typo`;
    const missing = await box.run(['admin', 'instance', '--strict', '--data', typo]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no svc instance/);
    expect(existsSync(typo)).toBe(false);
  });
});
