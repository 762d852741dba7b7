import { expect } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { runSvc, tempDir } from './run-cli.js';

/** A data directory and config directory shared by the runs of one test, with a partner in it. */
export async function partnerSetup() {
  const env: Record<string, string> = { SVC_HOME: tempDir('svc-home-'), SVC_CONFIG_DIR: tempDir('svc-conf-'), HOME: tempDir('svc-user-') };
  const created = await runSvc(['admin', 'partner', 'create', '--name', 'Acme', '--json'], { env });
  expect(created.code).toBe(0);
  const partner = created.json<{ partner_id: string; partner_secret: string }>();
  expect(Object.keys(partner)).toEqual(['partner_id', 'partner_secret']);
  const partnerEnv = { ...env, SVC_PARTNER_ID: partner.partner_id, SVC_PARTNER_SECRET: partner.partner_secret };
  // The real client factory, so `svc sim scan` reaches the same data directory.
  const svc = (args: string[], extra: Parameters<typeof runSvc>[1] = {}) =>
    runSvc(args, { env: partnerEnv, io: { createClient }, ...extra });
  return { env, partner, svc };
}
