import { isInternationalPhone, type DeliveryOutcome, type DeliveryRequest, type IncomingMessage, type NetworkDriver, type NetworkEvents } from './driver.js';

/** What the simulated network must share between processes; the engine backs it with its database. */
export interface SimState {
  /** Whether `phone` is unreachable for sends from `accountPhone`. */
  isUnreachable(phone: string, accountPhone: string): Promise<boolean>;
  deliveredId(messageUid: string): Promise<string | undefined>;
  /** `at`: when the message was handed to the network (before the checks above), the time spacing is about. */
  recordDelivery(messageUid: string, networkMessageId: string, at: number): Promise<void>;
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
    const earlier = await this.state.deliveredId(request.messageUid);
    if (earlier !== undefined) return { status: 'sent', networkMessageId: earlier };
    if (!isInternationalPhone(request.recipientPhone)) {
      return { status: 'failed', reason: 'invalid_number', detail: `${request.recipientPhone} is not a valid international number` };
    }
    if (await this.state.isUnreachable(request.recipientPhone, request.accountPhone)) {
      return { status: 'failed', reason: 'unreachable', detail: `${request.recipientPhone} is not reachable on the network` };
    }
    const networkMessageId = `sim-${request.messageUid}`;
    await this.state.recordDelivery(request.messageUid, networkMessageId, handedOverAt);
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
