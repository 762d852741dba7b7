import { SvcError } from '../wire/errors.js';
import type { Engine } from '../engine/engine-api.js';
import { openEngine } from '../runtime/open-engine.js';
import { localTarget } from './local-client.js';
import { createLocalListenClient } from './local-listen.js';
import type { PartnerClient } from './partner-client.js';
import { localWebhooksClient } from './webhooks-clients.js';

/**
 * The Partner API of the engine on a data directory. There is no JWT to verify in process, so the Partner
 * ID and Secret are checked directly; a wrong pair is refused as the server would refuse it.
 */
export async function openPartnerLocalClient(options: {
  dataDir: string;
  databaseUrl?: string | undefined;
  partnerId: string;
  partnerSecret: string;
  timeoutMs?: number | undefined;
  workers?: boolean | undefined;
}): Promise<PartnerClient> {
  const engine = await openEngine({
    dataDir: options.dataDir,
    // Development URLs unless the instance is strict (a server without --dev served it): the instance decides.
    dev: true,
    // A command never waits on a webhook receiver nor leaves a claim behind: `svc serve` (or `svc dev`) delivers.
    deliverWebhooks: false,
    ...(options.databaseUrl === undefined ? {} : { databaseUrl: options.databaseUrl }),
    ...(options.timeoutMs === undefined ? {} : { busyTimeoutMs: options.timeoutMs }),
  });
  let known: boolean;
  try {
    known = await engine.partners.verifySecret(options.partnerId, options.partnerSecret);
  } catch (error) {
    await engine.close();
    throw error;
  }
  if (!known) {
    await engine.close();
    throw new SvcError('unauthorized', `The ${localTarget(options)} does not know this Partner ID and Secret`, {
      hint: 'check SVC_PARTNER_ID / SVC_PARTNER_SECRET, or run `svc login --partner` again',
    });
  }
  // Workers run so that a scan or a send in this process completes like on the server.
  if (options.workers !== false) engine.workers.start();
  return createPartnerLocalClient(engine, options.partnerId, localTarget(options), () => engine.close());
}

/** Wraps one partner of an engine as a PartnerClient. */
export function createPartnerLocalClient(engine: Engine, partnerId: string, target: string, close: () => Promise<void>): PartnerClient {
  const api = engine.partner(partnerId);
  return {
    target,
    describe: async () => api.describe(),
    createWorkspace: async (input) => api.createWorkspace(input),
    getWorkspace: async (ws) => api.getWorkspace(ws),
    updateWorkspace: async (ws, input) => api.updateWorkspace(ws, input),
    createUsers: async (ws, count) => api.createUsers(ws, { count }),
    listUsers: async (ws, page = 1) => api.listUsers(ws, page),
    createQrLink: async (ws, user, input = {}) => api.createQrLink(ws, user, input),
    disconnectAccount: async (ws, user) => api.disconnectAccount(ws, user),
    getApiToken: async (ws) => api.getApiToken(ws),
    rotateApiToken: async (ws) => api.rotateApiToken(ws),
    webhooks: localWebhooksClient(() => api.webhooks()),
    listen: createLocalListenClient(() => api.listen()),
    close,
  };
}
