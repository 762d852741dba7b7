import type { SvcClient } from './client.js';

/** What picks and configures a client: a base URL means a remote instance, otherwise the local engine. */
export interface ClientConfig {
  baseUrl?: string | undefined;
  token?: string | undefined;
  /** Data directory of the local embedded engine. */
  dataDir: string;
  /** A `postgres://` URL: the local engine runs on that database instead of `dataDir`. */
  databaseUrl?: string | undefined;
  /**
   * Workspace to act on when the local engine is used without a token (`svc sim ... --workspace WS`).
   * A remote instance always acts on the token's workspace, so it is not sent there.
   */
  workspaceId?: number | undefined;
  /** Longest wait for an answer: an HTTP request (connecting included), or another process's SQLite write lock. */
  timeoutMs?: number | undefined;
  /** Start the local engine's workers (default true). Shell completion only reads, and must not send anything. */
  workers?: boolean | undefined;
}

/**
 * The one place that decides between the local embedded engine and a remote instance over HTTP.
 * Both modules load lazily so an HTTP command never opens SQLite and a local one never loads undici.
 */
export async function createClient(config: ClientConfig): Promise<SvcClient> {
  if (config.baseUrl !== undefined && config.baseUrl !== '') {
    const { createHttpClient } = await import('./http-client.js');
    return createHttpClient({ baseUrl: config.baseUrl, token: config.token ?? '', ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs }) });
  }
  const { openLocalClient } = await import('./local-client.js');
  return openLocalClient({
    dataDir: config.dataDir,
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    ...(config.token === undefined ? {} : { token: config.token }),
    ...(config.workspaceId === undefined ? {} : { workspaceId: config.workspaceId }),
    ...(config.timeoutMs === undefined ? {} : { busyTimeoutMs: config.timeoutMs }),
    ...(config.workers === undefined ? {} : { workers: config.workers }),
  });
}
