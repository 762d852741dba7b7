/** The name the webhook worker wakes under (`ctx.wake`): this process's runner, and on PostgreSQL every replica's. */
export const WEBHOOKS_WAKE = 'webhooks';
