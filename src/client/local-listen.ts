import type { ListenSessionsApi } from '../engine/webhooks/listen-sessions.js';
import { isSvcError } from '../wire/errors.js';
import { AsyncQueue, DeliveryDeduper, type ListenClient, type ListenSession } from './listen-client.js';
import type { ListenDeliveryDto } from '../wire/listen-types.js';

/** How often the local listener looks for due deliveries. */
export const LOCAL_LISTEN_POLL_MS = 200;

/**
 * Listen sessions on the embedded engine. Events are written by whichever process causes them (`svc send`
 * and `svc sim receive` in other terminals), so the only thing connecting them to this listener is the
 * database: it polls the engine's claim, which is a cheap read while nothing is due.
 */
export function createLocalListenClient(scope: () => ListenSessionsApi, pollMs = LOCAL_LISTEN_POLL_MS): ListenClient {
  // Looked up on first use: every local command builds this client, few of them listen.
  let cached: ListenSessionsApi | undefined;
  const sessions = () => (cached ??= scope());
  return {
    secret: async () => (await sessions().secret()).secret,

    async open(options = {}) {
      const api = sessions();
      const session = await api.open(options.events === undefined ? {} : { events: options.events });
      const queue = new AsyncQueue<ListenDeliveryDto>();
      const deduper = new DeliveryDeduper();
      let closed = false;
      let closing: Promise<void> | undefined;
      let timer: NodeJS.Timeout | undefined;
      // Set once the first call to deliveries() starts the polling loop (one claim at a time, then a pause).
      let polling = false;

      const poll = async (): Promise<void> => {
        if (closed) return;
        try {
          for (const delivery of await api.claim(session.id)) if (!closed && deduper.admit(delivery)) queue.push(delivery);
        } catch (error) {
          // Gone: closed by someone else or expired. Anything else (a busy database) is retried next poll.
          if (isSvcError(error) && error.code === 'not_found') return queue.end(error);
        }
        if (!closed) timer = setTimeout(() => void poll(), pollMs);
      };

      const listen: ListenSession = {
        id: session.id,
        secret: session.secret,
        events: session.events,
        deliveries: () => {
          if (!polling && !closed) {
            polling = true;
            void poll();
          }
          return queue;
        },
        report: async (result) => {
          try {
            return await api.report(session.id, result, options.retryDelaysMs === undefined ? {} : { retryDelaysMs: options.retryDelaysMs });
          } catch (error) {
            // Unreported: when the delivery is handed out again it must be forwarded again.
            deduper.forget(result.delivery_id);
            throw error;
          }
        },
        // Every caller gets the same outcome: a second call (the command's `finally` after Ctrl-C's) waits for
        // the removal under way instead of returning at once, so the engine is not closed under it.
        close: () =>
          (closing ??= (async () => {
            closed = true;
            if (timer !== undefined) clearTimeout(timer);
            queue.end();
            try {
              await api.close(session.id);
            } catch (error) {
              if (!(isSvcError(error) && error.code === 'not_found')) throw error;
            }
          })()),
      };
      options.onStatus?.({ kind: 'connected', reconnected: false });
      return listen;
    },
  };
}
