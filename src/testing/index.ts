/** `import { startSandbox } from 'svc/testing'`: the service in process, for integration tests. */
export { startSandbox, type Sandbox, type SandboxDelivery, type SandboxOptions } from './sandbox.js';
export { parseDuration } from './duration.js';
export type { EventType, WebhookEvent, WebhookEventOf, WebhookEventType } from '../wire/webhook-events.js';
