import { isInternationalPhone, type DeliveryOutcome, type DeliveryRequest, type IncomingMessage, type NetworkDriver, type NetworkEvents } from './driver.js';

/** What the simulated network must share between processes; the engine backs it with its database. */
export interface SimState {
  /**
   * Records the delivery of each message, in order, in one step (one statement on PostgreSQL), and answers for
   * each: the network id of an earlier delivery of the same message (handing over is idempotent), 'unreachable'
   * when `recipientPhone` is unreachable for sends from `accountPhone`, or else `networkMessageId`, recorded at
   * `at` (when the message was handed to the network, the time spacing is about).
   */
  handOverRun(run: readonly SimHandOver[]): Promise<Array<string | 'unreachable'>>;
  now(): number;
}

/** One message handed to the simulated network. */
export interface SimHandOver {
  messageUid: string;
  networkMessageId: string;
  accountPhone: string;
  recipientPhone: string;
  at: number;
}

/**
 * The built-in simulated network. Contacts are phone numbers. A delivery fails when the recipient is not a
 * valid international number or has been marked unreachable; otherwise it is delivered at once. Incoming
 * traffic and account changes happen when a test or `svc sim ...` asks for them.
 */
export class SimDriver implements NetworkDriver {
  readonly name = 'sim';
  private events: NetworkEvents | undefined;

  /**
   * A run recorded in one step. A property, not a method, so a test's driver can go without it (`undefined`)
   * and have the engine hand its messages over one by one.
   */
  deliverRun?: (requests: readonly DeliveryRequest[]) => Promise<DeliveryOutcome[]> = (requests) => this.handOver(requests);

  constructor(private readonly state: SimState) {}

  start(events: NetworkEvents): void {
    this.events = events;
  }

  deliver(request: DeliveryRequest): Promise<DeliveryOutcome> {
    return this.handOver([request]).then((outcomes) => outcomes[0]!);
  }

  /** Hands `requests` to the network, in order, and answers their outcomes in the same order. */
  protected async handOver(requests: readonly DeliveryRequest[]): Promise<DeliveryOutcome[]> {
    const at = this.state.now();
    // A number that is not valid was never delivered to, so this check may come before the earlier delivery's.
    const valid = requests.filter((r) => isInternationalPhone(r.recipientPhone));
    const answers = await this.state.handOverRun(
      valid.map(({ messageUid, accountPhone, recipientPhone }) => ({ messageUid, networkMessageId: `sim-${messageUid}`, accountPhone, recipientPhone, at })),
    );
    const answerOf = new Map(valid.map((request, i) => [request, answers[i]!]));
    return requests.map((request): DeliveryOutcome => {
      const answer = answerOf.get(request);
      if (answer === undefined) return { status: 'failed', reason: 'invalid_number', detail: `${request.recipientPhone} is not a valid international number` };
      if (answer === 'unreachable') return { status: 'failed', reason: 'unreachable', detail: `${request.recipientPhone} is not reachable on the network` };
      return { status: 'sent', networkMessageId: answer };
    });
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
