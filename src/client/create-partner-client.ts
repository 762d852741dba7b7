import type { PartnerClient, PartnerClientConfig } from './partner-client.js';

/** The one place that decides between the local engine and a remote Partner API (both loaded lazily). */
export async function createPartnerClient(config: PartnerClientConfig): Promise<PartnerClient> {
  if (config.baseUrl !== undefined && config.baseUrl !== '') {
    const { createPartnerHttpClient } = await import('./partner-http-client.js');
    return createPartnerHttpClient({
      baseUrl: config.baseUrl,
      partnerId: config.partnerId,
      partnerSecret: config.partnerSecret,
      ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }),
    });
  }
  const { openPartnerLocalClient } = await import('./partner-local-client.js');
  return openPartnerLocalClient(config);
}
