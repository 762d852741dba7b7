import { FakeClock } from '../../src/wire/clock.js';
import { createEngine } from '../../src/runtime/create-engine.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { openDatabase } from '../../src/store/database.js';
import type { SqlDatabase } from '../../src/store/sql-database.js';
import { SqliteDatabase } from '../../src/store/sqlite-database.js';
import { recordingSink } from './engine-fixtures.js';
import { fixedRandom } from './test-engine.js';

/** A real engine (in-memory unless `database` is given, fake clock, recording event sink) with one partner, and its server for `inject`. */
export async function partnerFixture(options: { publicUrl?: string; database?: SqlDatabase } = {}) {
  const clock = new FakeClock();
  const sink = recordingSink();
  const database = options.database ?? new SqliteDatabase(openDatabase(':memory:'));
  const engine = createEngine({ database, clock, random: fixedRandom(), events: sink.parts });
  const partner = await engine.admin.createPartner({ name: 'Acme' });
  const other = await engine.admin.createPartner({ name: 'Other' });
  const app = buildServer({ engine, rateLimitPerMinute: 0, publicUrl: options.publicUrl });
  /** Headers of a fresh, valid partner request. */
  const headers = (who = partner) => ({
    authorization: `Bearer ${signPartnerJwt(who.partner_id, who.partner_secret, clock)}`,
    'x-svc-partner-id': who.partner_id,
  });
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: object, who = partner) => {
    const response = await app.inject({ method, url: `/partner${url}`, headers: headers(who), ...(body === undefined ? {} : { payload: body }) });
    return { status: response.statusCode, body: response.json() as { status: string; data: any; error_code?: string; rule?: string; message?: string } };
  };
  return { clock, sink, engine, partner, other, app, headers, call, api: engine.partner(partner.partner_id) };
}

/** The partner events recorded so far, as `type` strings. */
export const partnerEventTypes = (sink: ReturnType<typeof recordingSink>): string[] =>
  sink.events.filter((event) => 'partnerId' in event).map((event) => event.type);
