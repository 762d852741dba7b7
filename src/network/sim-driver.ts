import { isInternationalPhone, type DeliveryOutcome, type DeliveryRequest, type IncomingMessage, type NetworkDriver, type NetworkEvents } from './driver.js';

/** What the simulated network must share between processes; the engine backs it with its database. */
export interface SimState {
  /**
   * Records the delivery of a message: answers the network id of an earlier delivery of the same message
   * (handing over is idempotent), 'unreachable' when `recipientPhone` is unreachable for sends from
   * `accountPhone`, and otherwise records `networkMessageId` at `at` (when the message was handed to the
   * network, the time spacing is about) and answers it.
   */
  handOver(delivery: { messageUid: string; networkMessageId: string; accountPhone: string; recipientPhone: string; at: number }): Promise<string | 'unreachable'>;
  now(): number;
}

/**
 * The built-in simulated network. Contacts are phone numbers. A delivery fails when the recipient is not a
 * valid international number or has been marked unreachable; otherwise it is delivered at once. Incoming
 * traffic and account changes happen when a test or `svc sim ...` asks for them.
 */
export class SimDriver implements NetworkDriver {
  readonly name = 'sim';
  private events: NetworkEvents | undefined;

  constructor(
    private readonly state: SimState,
    private readonly latencyMs = 0,
  ) {}

  start(events: NetworkEvents): void {
    this.events = events;
  }

  async deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
    const handedOverAt = this.state.now();
    if (this.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    // A number that is not valid was never delivered to, so this check may come before the earlier delivery's.
    if (!isInternationalPhone(request.recipientPhone)) {
      return { status: 'failed', reason: 'invalid_number', detail: `${request.recipientPhone} is not a valid international number` };
    }
    const { messageUid, accountPhone, recipientPhone } = request;
    const networkMessageId = await this.state.handOver({ messageUid, networkMessageId: `sim-${messageUid}`, accountPhone, recipientPhone, at: handedOverAt });
    if (networkMessageId === 'unreachable') {
      return { status: 'failed', reason: 'unreachable', detail: `${request.recipientPhone} is not reachable on the network` };
    }
    return { status: 'sent', networkMessageId };
  }

  async stop(): Promise<void> {
    this.events = undefined;
  }

  /** A contact sends a message to one of the workspace's accounts. */
  receive(message: IncomingMessage): Promise<{ messageUid: string; chatId: number }> {
    return this.sink().messageReceived(message);
  }

  /** A contact reacts to a message. */
  react(messageUid: string, emoji: string, fromPhone?: string): Promise<Record<string, string>> {
    return this.sink().reactionAdded(fromPhone === undefined ? { messageUid, emoji } : { messageUid, emoji, fromPhone });
  }

  /** The network logs an account out, suspends its syncing, or resumes it. */
  changeAccount(accountPhone: string, status: 'disconnected' | 'suspended' | 'resumed'): Promise<void> {
    return this.sink().accountChanged({ accountPhone, status });
  }

  private sink(): NetworkEvents {
    if (this.events === undefined) throw new Error('sim driver is not started');
    return this.events;
  }
}
