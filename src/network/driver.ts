/**
 * The only way the engine talks to a messaging network. A real network driver implements this interface
 * and nothing else; the engine never learns which network it drives.
 *
 * Outgoing: the engine calls `deliver` once per claimed message. It must be idempotent on `messageUid`:
 * after a crash the engine may hand the same message over again, and a driver that already delivered it
 * answers with the earlier result instead of sending twice.
 *
 * Incoming: the driver reports what happens on the network (messages from contacts, reactions, account
 * changes) by calling the `NetworkEvents` sink it was started with; each call resolves once the engine has
 * stored the change (and rejects, with SvcError, when it refuses it).
 */
export interface NetworkDriver {
  /** Name of the network, used as `origin` in webhook payloads. */
  readonly name: string;
  start(events: NetworkEvents): void;
  deliver(request: DeliveryRequest): Promise<DeliveryOutcome>;
  /**
   * Optional: several messages of one account, in queue order, handed over in one call (the engine claims up to
   * 8 at once of an account that sends unspaced), answered with their outcomes in the same order. Each is
   * idempotent on `messageUid` as with `deliver`, so a throw leaves the engine free to hand them over again: an
   * `unavailable` SvcError (a passing condition) has the whole run claimed again later, and any other error has
   * each message handed over with `deliver`. Without it, the engine calls `deliver` for each, one after the other.
   */
  deliverRun?(requests: readonly DeliveryRequest[]): Promise<DeliveryOutcome[]>;
  stop(): Promise<void>;
}

export interface DeliveryRequest {
  messageUid: string;
  accountPhone: string;
  recipientPhone: string;
  text: string | null;
  attachment: { filename: string; mimetype: string; size: number } | null;
  replyToUid: string | null;
}

/**
 * `failed` is final and restores the credits. Reasons the engine knows: `invalid_number`, `unreachable`,
 * `account_not_connected`, `network_error`; a driver may report others.
 */
export type DeliveryOutcome =
  | { status: 'sent'; networkMessageId: string }
  | { status: 'failed'; reason: string; detail?: string };

export interface IncomingMessage {
  accountPhone: string;
  /**
   * The workspace the message is addressed through (the sim's API, which acts for one workspace): an account of
   * another workspace is then not found. Checked in the transaction that stores the message, with no
   * statement of its own.
   */
  workspaceId?: number;
  contactPhone: string;
  contactName?: string;
  text?: string;
  attachmentFileUid?: string;
  replyToUid?: string;
  /**
   * Handed to the engine's write of the message unopened (a `BatchAdmission`): the sim API's caller was let in
   * by a token from memory, which the write checks again. Only the sim API sets it.
   */
  writeAdmission?: unknown;
}

export interface NetworkEvents {
  messageReceived(message: IncomingMessage): Promise<{ messageUid: string; chatId: number }>;
  reactionAdded(reaction: { messageUid: string; emoji: string; fromPhone?: string }): Promise<Record<string, string>>;
  accountChanged(change: { accountPhone: string; status: 'disconnected' | 'suspended' | 'resumed' }): Promise<void>;
}

/** True for a number in international format: plus sign, country code, then 6 to 14 more digits. */
export const isInternationalPhone = (phone: string): boolean => /^\+[1-9]\d{7,14}$/.test(phone);
