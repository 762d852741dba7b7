import { randomBytes } from 'node:crypto';
import type {
  ListenClosedDto,
  ListenDeliveryDto,
  ListenOpenInput,
  ListenReportDto,
  ListenResultInput,
  ListenSecretDto,
  ListenSessionDto,
} from '../../wire/listen-types.js';
import type { ListenScope, ListenSessionRow } from '../../store/webhooks/listen-store.js';
import { OUTBOX_TRANSACTION } from '../../store/webhooks/delivery-outbox.js';
import { didYouMean } from '../../wire/suggest.js';
import { EVENT_TYPES } from '../../wire/webhook-events.js';
import { maxAttempts, nextAttemptAt } from '../../webhooks/retry-schedule.js';
import { generateSecret, signedHeaders } from '../../webhooks/signature.js';
import { isoTime } from '../../wire/clock.js';
import { inWriteTransaction, type EngineContext } from '../context.js';
import { conflict, invalid, notFound } from '../../wire/errors.js';
import { PARTNER_EVENTS } from '../events.js';
import { assertId } from '../ids.js';

/**
 * A session not seen (no stream, no poll) for this long is removed: when the next session opens, and by the
 * server's maintenance sweep. An open stream marks its session seen every HEARTBEAT_WRITE_MS.
 */
export const LISTEN_SESSION_TTL_MS = 60_000;
/** Open sessions one workspace (or partner) may hold; each is a dozen subscriptions every event fans out to. */
export const LISTEN_SESSIONS_PER_WORKSPACE = 5;
/** How long a handed-out delivery stays leased; longer than the in-flight cap times the 5 s forward timeout. */
export const LISTEN_LEASE_MS = 60_000;
/** Deliveries handed out and not yet reported, per session; bounds what a slow local app can hold. */
export const LISTEN_IN_FLIGHT_CAP = 10;
/** last_seen_at is written at most this often, so polling does not take the write lock every time. */
const HEARTBEAT_WRITE_MS = 5_000;
const MAX_ERROR_LENGTH = 500;

/** `svc webhooks listen` sessions of one workspace or partner: the engine's side of the listen clients. */
export interface ListenSessionsApi {
  /** The scope's listener secret (created on first use; every session signs with it). */
  secret(): Promise<ListenSecretDto>;
  /** Opens a session with one listener subscription per event; removes stale sessions first. */
  open(input: ListenOpenInput): Promise<ListenSessionDto>;
  /** The session, marked as seen; not_found once it was closed or expired. */
  get(id: string): Promise<ListenSessionDto>;
  /** Leases due deliveries of the session (up to the in-flight cap), signed with its secret. */
  claim(id: string): Promise<ListenDeliveryDto[]>;
  /** A new stream took over: deliveries leased to an earlier one become due again at once. */
  takeOver(id: string): Promise<void>;
  /** Records the local app's answer as that delivery's attempt, with the same retry rules as any subscription. */
  report(id: string, input: ListenResultInput, options?: { retryDelaysMs?: readonly number[] }): Promise<ListenReportDto>;
  /** Removes the session, its subscriptions and their deliveries. */
  close(id: string): Promise<ListenClosedDto>;
}

/** Lease owner of a session's deliveries: the session itself, so results survive a reconnect. */
const ownerOf = (id: string): string => `listen:${id}`;

/** The listen sessions of one workspace (the 12 workspace events). */
export const listenSessions = (ctx: EngineContext, workspaceId: number): ListenSessionsApi =>
  sessionsOf(ctx, { workspaceId, partnerId: null }, EVENT_TYPES);

/** The listen sessions of one partner (the partner events); `partnerId` is the partner's row id. */
export const partnerListenSessions = (ctx: EngineContext, partnerId: number): ListenSessionsApi =>
  sessionsOf(ctx, { workspaceId: null, partnerId }, PARTNER_EVENTS);

/** The sessions of a stale row, whichever scope it has (for the maintenance sweep). */
export const listenSessionsOf = (ctx: EngineContext, row: { workspace_id: number | null; partner_id: number | null }): ListenSessionsApi =>
  row.workspace_id !== null ? listenSessions(ctx, row.workspace_id) : partnerListenSessions(ctx, row.partner_id as number);

function sessionsOf(ctx: EngineContext, scope: ListenScope, known: readonly string[]): ListenSessionsApi {
  const owner = scope.workspaceId !== null ? 'workspace' : 'partner';
  const listenCommand = scope.workspaceId !== null ? 'svc webhooks listen' : 'svc partner webhooks listen';
  // Workspace keys keep their original form, so secrets made before partner sessions existed stay valid.
  const secretKey = scope.workspaceId !== null ? `listen_secret:${scope.workspaceId}` : `listen_secret:partner:${scope.partnerId}`;

  /** The scope's listener secret, created if missing; call inside a write transaction (`tx`). */
  const secret = async (tx: EngineContext): Promise<string> => {
    const existing = await tx.stores.workspaces.getSetting(secretKey);
    if (existing !== undefined) return existing;
    // Insert-if-absent: when two processes race, both read back the one that won.
    await tx.stores.workspaces.putSettingOnce(secretKey, generateSecret());
    return (await tx.stores.workspaces.getSetting(secretKey)) as string;
  };

  /** The session of this scope, read through `c` (the engine's context, or the transaction that depends on it). */
  const session = async (c: EngineContext, id: unknown): Promise<ListenSessionRow> => {
    if (typeof id !== 'string' || !/^ls_[0-9a-f]{24}$/.test(id)) throw notFound('listen session');
    const row = await c.stores.listen.byId(id, scope);
    if (row === undefined) throw notFound(`listen session ${id}`, `it was closed or expired; start \`${listenCommand}\` again`);
    return row;
  };

  // A heartbeat, throttled: one autocommit statement; losing a race with a close only updates nothing.
  const seen = async (row: ListenSessionRow): Promise<void> => {
    const now = ctx.clock.now();
    if (now - row.last_seen_at >= HEARTBEAT_WRITE_MS) await ctx.stores.listen.touch(row.id, now);
  };

  const dto = (row: ListenSessionRow): ListenSessionDto => ({
    id: row.id,
    secret: row.secret,
    events: JSON.parse(row.events) as string[],
  });

  return {
    secret: async () => ({ secret: await inWriteTransaction(ctx, secret) }),

    async open(input) {
      const events = eventsOf(input.events, known);
      const now = ctx.clock.now();
      const id = `ls_${randomBytes(12).toString('hex')}`;
      // Sweep, count and insert in one transaction: two opens at the limit cannot both get in.
      return inWriteTransaction(ctx, async (tx) => {
        const { listen } = tx.stores;
        await listen.removeStale(now - LISTEN_SESSION_TTL_MS);
        if ((await listen.countOpen(scope)) >= LISTEN_SESSIONS_PER_WORKSPACE) {
          throw conflict(
            `This ${owner} already has ${LISTEN_SESSIONS_PER_WORKSPACE} open listen sessions`,
            `stop a running \`${listenCommand}\` (Ctrl-C); a session whose stream is gone expires after a minute`,
          );
        }
        const signing = await secret(tx);
        await listen.insertSession({ id, scope, events, secret: signing, now });
        for (const eventType of events) {
          await listen.insertSubscription({ sessionId: id, scope, eventType, url: `listen://${id}`, secret: signing, now });
        }
        return { id, secret: signing, events: [...events] };
      });
    },

    async get(id) {
      const row = await session(ctx, id);
      await seen(row);
      return dto(row);
    },

    async claim(id) {
      const row = await session(ctx, id);
      await seen(row);
      const now = ctx.clock.now();
      // A plain read first: an idle stream's poll opens no write transaction.
      if (!(await ctx.stores.listen.hasDue(row.id, now))) return [];
      const sessionOwner = ownerOf(row.id);
      // The in-flight count and the lease in one transaction, the session's row locked (PostgreSQL), so two
      // polls of one session cannot both fill the cap; gone meanwhile (closed, expired) reads as not found.
      const claimed = await inWriteTransaction(
        ctx,
        async (tx) => {
          if (!(await tx.stores.listen.lockSession(row.id))) throw notFound(`listen session ${row.id}`, `it was closed or expired; start \`${listenCommand}\` again`);
          const free = LISTEN_IN_FLIGHT_CAP - (await tx.stores.listen.inFlight(sessionOwner, now));
          if (free <= 0) return [];
          return tx.stores.deliveries.claim({
            now,
            limit: free,
            owner: sessionOwner,
            leaseMs: LISTEN_LEASE_MS,
            perSubscriptionCap: LISTEN_IN_FLIGHT_CAP,
            listenSessionId: row.id,
          });
        },
        OUTBOX_TRANSACTION,
      );
      const attempts = maxAttempts(ctx.config.webhookRetryDelaysMs);
      return claimed.map((d) => ({
        id: d.id,
        webhook_id: d.msgId,
        event_type: d.eventType,
        attempt: d.attempts + 1,
        max_attempts: attempts,
        payload: d.payload,
        headers: { ...signedHeaders({ secret: d.secret, msgId: d.msgId, timestamp: Math.floor(now / 1000), body: d.payload }) },
      }));
    },

    async takeOver(id) {
      await inWriteTransaction(ctx, async (tx) => {
        const row = await session(tx, id);
        await tx.stores.listen.releaseLeases(ownerOf(row.id), tx.clock.now());
      });
    },

    async report(id, input, options = {}) {
      const now = ctx.clock.now();
      const { result, recorded } = await inWriteTransaction(ctx, async (tx) => {
        const row = await session(tx, id);
        const result = checkResult(input);
        // No status and no error: the listener only printed the event (no --forward-to), which counts as received.
        const code = result.status_code;
        const ok = result.error === null && (code === null || (code >= 200 && code < 300));
        const recorded = await tx.stores.deliveries.record({
          deliveryId: result.delivery_id,
          owner: ownerOf(row.id),
          outcome: {
            ok,
            statusCode: result.status_code,
            durationMs: result.duration_ms,
            error: ok ? null : (result.error ?? `local app answered ${result.status_code}`),
          },
          now,
          retryAt: (attemptNumber, failedAt) => nextAttemptAt(attemptNumber, failedAt, options.retryDelaysMs ?? tx.config.webhookRetryDelaysMs),
          // A listener's failures notify nobody (its subscription is the session's): the store checks that.
          failureNotifyThreshold: tx.config.webhookFailureNotifyThreshold,
        });
        return { result, recorded };
      });
      // Only a delivery this session was handed and has not answered yet takes a result: the route is
      // outside the per-minute limit, so anything else is refused rather than silently absorbed.
      if (recorded.status === 'lease_lost') {
        throw conflict(
          `delivery ${result.delivery_id} is not awaiting a result from this session`,
          'report each delivery the stream pushed once; one whose lease ran out is pushed again',
        );
      }
      return {
        delivery_id: result.delivery_id,
        status: recorded.status,
        attempt: recorded.attemptNumber,
        next_attempt_at: recorded.nextAttemptAt === null ? null : isoTime(recorded.nextAttemptAt),
      };
    },

    async close(id) {
      const closed = await inWriteTransaction(ctx, async (tx) => {
        const row = await session(tx, id);
        await tx.stores.listen.remove(row.id);
        return row.id;
      });
      return { closed: true, id: closed };
    },
  };
}

function eventsOf(events: unknown, known: readonly string[]): string[] {
  if (events === undefined) return [...known];
  if (!Array.isArray(events) || events.length === 0) throw invalid('events must be a non-empty list of event types');
  for (const event of events) {
    if (typeof event !== 'string' || !known.includes(event)) {
      const suggestion = typeof event === 'string' ? didYouMean(event, known) : undefined;
      throw invalid(`unknown event "${String(event)}"; expected some of ${known.join(', ')}`, suggestion);
    }
  }
  return [...new Set(events as string[])];
}

function checkResult(input: ListenResultInput): ListenResultInput {
  assertId('delivery_id', input.delivery_id);
  const code = input.status_code;
  if (code !== null && (!Number.isInteger(code) || code < 100 || code > 599)) {
    throw invalid('status_code must be an HTTP status from 100 to 599, or null');
  }
  if (typeof input.duration_ms !== 'number' || !Number.isFinite(input.duration_ms) || input.duration_ms < 0) {
    throw invalid('duration_ms must be a number of milliseconds, 0 or more');
  }
  if (input.error !== null && typeof input.error !== 'string') throw invalid('error must be a string or null');
  return {
    delivery_id: input.delivery_id,
    status_code: code,
    duration_ms: Math.round(input.duration_ms),
    error: input.error === null ? null : input.error.slice(0, MAX_ERROR_LENGTH),
  };
}
