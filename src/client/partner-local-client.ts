import { SvcError } from '../engine/errors.js';
import type { Engine } from '../engine/engine-api.js';
import { openEngine } from '../runtime/open-engine.js';
import { createLocalListenClient } from './local-listen.js';
import type { PartnerClient } from './partner-client.js';
import { localWebhooksClient } from './webhooks-clients.js';

/**
 * The Partner API of the engine on a data directory. There is no JWT to verify in process, so the Partner
 * ID and Secret are checked directly; a wrong pair is refused as the server would refuse it.
 */
export async function openPartnerLocalClient(options: { dataDir: string; partnerId: string; partnerSecret: string }): Promise<PartnerClient> {
  const engine = openEngine({ dataDir: options.dataDir, dev: true });
  if (!engine.partners.verifySecret(options.partnerId, options.partnerSecret)) {
    await engine.close();
    throw new SvcError('unauthorized', `The local engine (${options.dataDir}) does not know this Partner ID and Secret`, {
      hint: 'check SVC_PARTNER_ID / SVC_PARTNER_SECRET, or run `svc login --partner` again',
    });
  }
  // Workers run so that a scan or a send in this process completes like on the server.
  engine.workers.start();
  return createPartnerLocalClient(engine, options.partnerId, `local engine (${options.dataDir})`, () => engine.close());
}

/** Wraps one partner of an engine; its synchronous answers become promises. */
export function createPartnerLocalClient(engine: Engine, partnerId: string, target: string, close: () => Promise<void>): PartnerClient {
  const api = engine.partner(partnerId);
  const run = async <T>(fn: () => T): Promise<T> => fn();
  return {
    target,
    describe: () => run(() => api.describe()),
    createWorkspace: (input) => run(() => api.createWorkspace(input)),
    getWorkspace: (ws) => run(() => api.getWorkspace(ws)),
    updateWorkspace: (ws, input) => run(() => api.updateWorkspace(ws, input)),
    createUsers: (ws, count) => run(() => api.createUsers(ws, { count })),
    listUsers: (ws, page = 1) => run(() => api.listUsers(ws, page)),
    createQrLink: (ws, user, input = {}) => run(() => api.createQrLink(ws, user, input)),
    disconnectAccount: (ws, user) => run(() => api.disconnectAccount(ws, user)),
    getApiToken: (ws) => run(() => api.getApiToken(ws)),
    rotateApiToken: (ws) => run(() => api.rotateApiToken(ws)),
    webhooks: localWebhooksClient(() => api.webhooks()),
    listen: createLocalListenClient(() => api.listen()),
    close,
  };
}
