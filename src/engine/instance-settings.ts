import { createInstanceSettingsStore } from '../store/instance-settings-store.js';
import type { SqlExecutor } from '../store/sql.js';
import { checkRetryDelays, DEFAULT_RETRY_DELAYS_MS } from '../webhooks/retry-schedule.js';
import type { Clock } from '../wire/clock.js';

/**
 * Rules that belong to the instance (its database), not to the process that happens to open it: every
 * process, a server or a local command, reads them when it opens the database.
 */
export interface InstanceSettings {
  /**
   * Webhook URLs are held to the public-https rule for every process. Set for good by the first `svc serve`
   * without `--dev` (or `svc admin instance --strict`); only `svc admin instance --dev-urls` lifts it.
   */
  strict: boolean;
  /** The retry schedule of every delivery, whichever process makes the attempt; null: the defaults. */
  webhookRetryDelaysMs: number[] | null;
}

/** What `svc admin instance` shows and `--json` prints. */
export interface InstanceSettingsDto {
  webhook_urls: 'strict' | 'local';
  webhook_retry_delays_ms: number[];
  webhook_retry_delays_default: boolean;
}

export interface InstanceSettingsUpdate {
  strict?: boolean;
  /** null restores the defaults. */
  webhookRetryDelaysMs?: number[] | null;
}

const STRICT = 'webhook_url_policy';
const RETRY_DELAYS = 'webhook_retry_delays_ms';

/** Reads the instance's settings; a value this release cannot read counts as never set. */
export async function readInstanceSettings(sql: SqlExecutor): Promise<InstanceSettings> {
  const values = await createInstanceSettingsStore(sql).all();
  return { strict: values.get(STRICT) === 'strict', webhookRetryDelaysMs: parseDelays(values.get(RETRY_DELAYS)) };
}

/** Changes what `update` names (retry delays are checked first: nothing is written for a bad value). */
export async function updateInstanceSettings(sql: SqlExecutor, clock: Clock, update: InstanceSettingsUpdate): Promise<InstanceSettings> {
  const store = createInstanceSettingsStore(sql);
  const delays = update.webhookRetryDelaysMs === undefined || update.webhookRetryDelaysMs === null ? update.webhookRetryDelaysMs : [...checkRetryDelays(update.webhookRetryDelaysMs)];
  if (update.strict === true) await store.set(STRICT, 'strict', clock.now());
  if (update.strict === false) await store.unset(STRICT);
  if (delays === null) await store.unset(RETRY_DELAYS);
  else if (delays !== undefined) await store.set(RETRY_DELAYS, JSON.stringify(delays), clock.now());
  return readInstanceSettings(sql);
}

export const instanceSettingsDto = (settings: InstanceSettings): InstanceSettingsDto => ({
  webhook_urls: settings.strict ? 'strict' : 'local',
  webhook_retry_delays_ms: settings.webhookRetryDelaysMs ?? [...DEFAULT_RETRY_DELAYS_MS],
  webhook_retry_delays_default: settings.webhookRetryDelaysMs === null,
});

function parseDelays(text: string | undefined): number[] | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? [...checkRetryDelays(value as number[])] : null;
  } catch {
    return null;
  }
}
