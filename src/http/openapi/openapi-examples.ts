/**
 * One example per named schema of the OpenAPI documents, by schema name. A test validates each against its
 * schema, so an example cannot drift from the shape it illustrates.
 */
const at = '2026-11-25T08:00:00.000Z';

export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  Error: { status: 'error', message: 'phone must be a number in international format, e.g. +14155550123', error_code: 'validation_error', hint: 'check the values passed' },
  SendResult: { message_uid: '01a2119b-3dfe-7d76-9b9d-c69ec2508c63', status: 'Pending', chat_id: 1, credits: 1 },
  Message: {
    uid: '01a2119b-3dfe-7d76-9b9d-c69ec2508c63', chat_id: 1, direction: 'sent', status: 'Sent', failure_reason: null, text: 'Hello',
    file_uid: null, attachment_template_id: null, messenger_account_phone: '+15550001234', contact_phone: '+14155550123',
    credits: 1, reactions: null, created_at: at, sent_at: at,
  },
  Chat: {
    id: 1, name: '+14155550123', phone: '+14155550123', is_group: false, messenger_account_phone: '+15550001234',
    responsible_email: 'ann@example.com', responsible_name: 'ann', labels: ['lead'], created_at: at,
  },
  MessengerAccount: {
    id: 1, phone: '+15550001234', full_name: 'Front desk', email: 'desk@example.com', status: 'connected', connected_at: at, is_default_sender: true,
  },
  Webhook: { id: 3, event_type: 'message:received:new', enabled: true, url: 'https://example.com/hooks', errors_counter: 0 },
  CreatedWebhook: {
    id: 3, event_type: 'message:received:new', enabled: true, url: 'https://example.com/hooks', errors_counter: 0,
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  },
  TriggeredEvent: { event_type: 'chat:created', webhook_id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', deliveries: 2 },
  PartnerWorkspace: {
    workspace_id: 2, display_name: 'Acme Dental', seats_purchased: 5, seats_used: 3,
    messaging_quota: { total: 1000, used: 12, remaining: 988, period_start: at, period_end: '2026-12-25T08:00:00.000Z' }, created_at: at,
  },
  PartnerUser: { user_id: 5, workspace_id: 2, name: 'User 5', messenger_account: null, created_at: at },
  QrLink: { user_id: 5, qr_link: 'https://svc.example/connect/3bCk2Vh1yQ9xJ0pLm4sTq7wZ8aR5nE6u', expires_at: '2026-11-26T08:00:00.000Z' },
  ApiToken: { workspace_id: 2, token: 'svc_l-dLj0CKhFpkrA0-uXSN8reTcqHfjiAnlhwa6QXqC7U', api_token: 'svc_l-dLj0CKhFpkrA0-uXSN8reTcqHfjiAnlhwa6QXqC7U', created_at: at },
  File: {
    uid: '01a2119b-5c1e-7a0b-8f3d-2e4c6a8b0d12', filename: 'menu.pdf', mimetype: 'application/pdf', size: 48213, created_at: at,
    temporary_download_url: 'https://svc.example/files/01a2119b-5c1e-7a0b-8f3d-2e4c6a8b0d12?expires=1795600800&signature=3f9a', expires_at: '2026-11-25T08:15:00.000Z',
  },
  AttachmentTemplate: { id: 4, name: 'Menu', file_uid: '01a2119b-5c1e-7a0b-8f3d-2e4c6a8b0d12', created_at: at },
  Workspace: {
    id: 2, name: 'Acme Dental', plan: 'standard', seats_purchased: 5, seats_used: 3, send_interval_ms: null,
    messaging_quota: { total: 1000, used: 12, remaining: 988, period: 'month', period_start: at, period_end: '2026-12-25T08:00:00.000Z' },
    storage: { limit_bytes: 1073741824, used_bytes: 48213 }, created_at: at,
  },
  WebhookDelivery: {
    id: 17, webhook_id: 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', event_type: 'message:received:new', status: 'succeeded',
    attempts: [{ attempt_number: 1, status: 'succeeded', response_code: 200, duration_ms: 84, error: null, created_at: at }],
    next_attempt_at: null, created_at: at, completed_at: at,
  },
  ListenSession: { id: 'ls_4f1c2b9a0e7d6c5b4a392817', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', events: ['message:new'] },
  Partner: { partner_id: 'pa_7Hq2LmX9', name: 'Acme Resellers', created_at: at },
  DisconnectResult: { disconnected: true, disconnected_at: at, phone: '+15550001234' },
  PartnerEvent: {
    event_type: 'messenger_account:connected', occurred_at: at,
    data: { workspace_id: 2, user_id: 5, phone: '+15550001234', connected_at: at },
  },
  ChatEvent: {
    event_type: 'chat:assigned',
    chat: {
      full_name: 'Alice', chat_url: 'https://svc.example/chats/1', chat_id: 1, is_group: false, phone: '+4915112345',
      responsible_name: 'ann', responsible_email: 'ann@example.com',
    },
    messenger_account: { full_name: 'Front desk', email: 'desk@example.com', phone: '+15550001234' },
  },
  AccountEvent: {
    event_type: 'messenger:account:suspended', occurred_at: '2026-11-25 08:00:00 +0000',
    messenger_account: { full_name: 'Front desk', email: 'desk@example.com', phone: '+15550001234', status: 'suspended' },
  },
  MessageEvent: {
    event_type: 'message:received:new',
    chat: {
      full_name: 'Alice', chat_url: 'https://svc.example/chats/1', chat_id: 1, is_group: false, phone: '+4915112345',
    },
    messenger_account: { full_name: 'Front desk', email: 'desk@example.com', phone: '+15550001234' },
    message: {
      text: 'Hi', direction: 'received', origin: 'sim', timestamp: '2026-11-25 08:00:00 +0000', message_uid: '01a2119b-4da7-7922-92f6-a886be50c7ba',
      reply_to_uid: '01a2119b-3dfe-7d76-9b9d-c69ec2508c63', sender: { full_name: 'Alice', phone: '+4915112345' },
      recipient: { full_name: 'Front desk', phone: '+15550001234' }, attachments: [], reactions: { '👍': '1' },
    },
  },
};
