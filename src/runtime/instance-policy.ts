import type { Clock } from '../wire/clock.js';
import { SvcError } from '../wire/errors.js';
import { readInstanceSettings, updateInstanceSettings } from '../engine/instance-settings.js';
import type { SqlDatabase } from '../store/sql-database.js';

/** How a process opens an instance, as far as the instance's own rules are concerned. */
export interface ProcessRole {
  /** `svc serve`: its `--dev` flag and `--webhook-retry-delays` speak for the instance. */
  serve: boolean;
  /** The process asks for development URLs (http, private addresses). */
  dev: boolean;
  /** A retry schedule the process was given. */
  webhookRetryDelaysMs?: number[] | undefined;
}

/** The engine settings a process runs with on this instance. */
export interface EffectivePolicy {
  dev: boolean;
  webhookRetryDelaysMs?: number[];
}

/**
 * Decides the URL policy and retry schedule of a process from the instance's settings, recording what a server
 * states: a server without `--dev` marks the instance strict for good, and a server's retry delays become the
 * instance's. Any other process asking for development URLs gets them only on an instance never marked strict
 * (a local sandbox), so no local command opens a loophole in a served instance's rule. `svc serve --dev` on a
 * strict instance is refused rather than quietly run strict: its operator asked for something else.
 */
export async function applyInstancePolicy(database: SqlDatabase, clock: Clock, role: ProcessRole): Promise<EffectivePolicy> {
  let settings = await readInstanceSettings(database.sql);
  if (role.serve) {
    if (role.dev && settings.strict) {
      throw new SvcError('conflict', 'This instance is strict: a server without --dev has served it, so --dev is refused', {
        hint: 'serve it without --dev; to allow private webhook URLs on it again, run `svc admin instance --dev-urls` first',
      });
    }
    const update = {
      ...(role.dev || settings.strict ? {} : { strict: true }),
      ...(role.webhookRetryDelaysMs === undefined ? {} : { webhookRetryDelaysMs: role.webhookRetryDelaysMs }),
    };
    if (Object.keys(update).length > 0) settings = await updateInstanceSettings(database.sql, clock, update);
  }
  const delays = settings.webhookRetryDelaysMs ?? role.webhookRetryDelaysMs;
  return { dev: role.dev && !settings.strict, ...(delays === undefined ? {} : { webhookRetryDelaysMs: delays }) };
}
