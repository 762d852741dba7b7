/**
 * What the engine reports as it works, for whoever counts it (`svc serve` exports it to Prometheus through
 * src/runtime/metrics.ts). The engine only calls these; it knows nothing of the exporter.
 */
export interface EngineMetrics {
  /** One webhook attempt recorded: its outcome, how long the POST took, and how long since the event was queued. */
  webhookAttempt(outcome: 'succeeded' | 'retry_scheduled' | 'failed' | 'lease_lost', durationMs: number, sinceQueuedMs: number): void;
  /** A tenant's webhook backlog passed (or fell back under) the bound. */
  webhookBacklog(tenantsOverBound: number): void;
  /**
   * A message the dispatcher finished (Sent, or Failed by the network or its account), counted once its completion
   * committed: how long since it was accepted, so the send queue's share of a send's time shows apart from HTTP's
   * and the webhook outbox's.
   */
  messageFinished(outcome: 'sent' | 'failed', sinceAcceptedMs: number): void;
}

export const noMetrics: EngineMetrics = { webhookAttempt: () => undefined, webhookBacklog: () => undefined, messageFinished: () => undefined };

/** Queue depths read on demand (a scrape), per kind of work. */
export interface QueueStats {
  /** Deliveries waiting or in flight, by subscription kind (workspace, partner, listen) and status. */
  webhooks: Array<{ kind: 'workspace' | 'partner' | 'listen'; status: 'pending' | 'delivering'; count: number; oldestCreatedAt: number | null }>;
  /** Send jobs queued (messages accepted and not yet handed to the network). */
  sends: { count: number; oldestCreatedAt: number | null };
  /** Owner notices still to be e-mailed. */
  ownerMail: { count: number };
}
