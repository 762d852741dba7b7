import type { ListenSessionsApi } from '../engine/listen-sessions.js';
import { isSvcError } from '../engine/errors.js';
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
    secret: async () => sessions().secret().secret,

    async open(options = {}) {
      const api = sessions();
      const session = api.open(options.events === undefined ? {} : { events: options.events });
      const queue = new AsyncQueue<ListenDeliveryDto>();
      const deduper = new DeliveryDeduper();
      let closed = false;
      let timer: NodeJS.Timeout | undefined;

      const poll = (): void => {
        timer = undefined;
        if (closed) return;
        try {
          for (const delivery of api.claim(session.id)) if (deduper.admit(delivery)) queue.push(delivery);
        } catch (error) {
          // Gone: closed by someone else or expired. Anything else (a busy database) is retried next poll.
          if (isSvcError(error) && error.code === 'not_found') return queue.end(error);
        }
        timer = setTimeout(poll, pollMs);
      };

      const listen: ListenSession = {
        id: session.id,
        secret: session.secret,
        events: session.events,
        deliveries: () => {
          if (timer === undefined && !closed) poll();
          return queue;
        },
        report: async (result) => {
          try {
            return api.report(session.id, result, options.retryDelaysMs === undefined ? {} : { retryDelaysMs: options.retryDelaysMs });
          } catch (error) {
            // Unreported: when the delivery is handed out again it must be forwarded again.
            deduper.forget(result.delivery_id);
            throw error;
          }
        },
        close: async () => {
          if (closed) return;
          closed = true;
          if (timer !== undefined) clearTimeout(timer);
          queue.end();
          try {
            api.close(session.id);
          } catch (error) {
            if (!(isSvcError(error) && error.code === 'not_found')) throw error;
          }
        },
      };
      options.onStatus?.({ kind: 'connected', reconnected: false });
      return listen;
    },
  };
}
