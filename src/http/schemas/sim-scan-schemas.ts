/** Schemas of `POST /sim/scan`: the simulated phone scans a partner QR link. */

export const simScanBody = {
  type: 'object',
  required: ['phone'],
  properties: {
    qr_link: { type: 'string', minLength: 1, maxLength: 2048 },
    payload: { type: 'string', minLength: 1, maxLength: 200 },
    phone: { type: 'string', minLength: 1, maxLength: 32 },
  },
} as const;

export const simScanSchema = {
  type: 'object',
  required: ['phone', 'status', 'workspace_id', 'user_id'],
  properties: {
    phone: { type: 'string' },
    status: { type: 'string', enum: ['connected'] },
    workspace_id: { type: 'integer' },
    user_id: { type: 'integer' },
  },
} as const;
