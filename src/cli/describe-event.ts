/**
 * A tolerant reader for the listener's printout. docs/api-behaviour.md describes two shapes without saying which
 * is authoritative: the full one (`message.message_uid` at the top level) and a short one nesting
 * `chat_id`, `chat_name`, `text` and `message_uid` under `data`. Both are read, and nothing here throws.
 */

/** What the listener prints about one event. */
export interface EventDescription {
  eventType: string | null;
  /** The best identifier found: a message UID, else a chat id, else an account phone, else `id`. */
  id: string | null;
  idKind: 'message_uid' | 'chat_id' | 'phone' | 'id' | null;
  chatId: string | null;
  chatName: string | null;
  text: string | null;
  shape: 'top-level' | 'nested' | 'unknown';
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | null => {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return null;
};

const first = (...values: unknown[]): string | null => {
  for (const value of values) {
    const found = text(value);
    if (found !== null) return found;
  }
  return null;
};

/** Reads event type and identifiers from a payload object or its raw JSON text. */
export function describeEvent(payload: unknown): EventDescription {
  let body = payload;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      body = JSON.parse(body.toString());
    } catch {
      body = null;
    }
  }
  const root: Json = isObject(body) ? body : {};
  const data: Json = isObject(root['data']) ? root['data'] : {};
  const message: Json = isObject(root['message']) ? root['message'] : {};
  const chat: Json = isObject(root['chat']) ? root['chat'] : {};
  const account: Json = isObject(root['messenger_account']) ? root['messenger_account'] : {};

  const eventType = first(root['event_type'], root['event'], root['type'], data['event_type']);
  const messageUid = first(message['message_uid'], data['message_uid']);
  const chatId = first(chat['chat_id'], data['chat_id']);
  const phone = first(account['phone'], data['phone']);
  const plainId = first(root['id'], data['id']);

  let id: string | null = null;
  let idKind: EventDescription['idKind'] = null;
  if (messageUid !== null) [id, idKind] = [messageUid, 'message_uid'];
  else if (chatId !== null) [id, idKind] = [chatId, 'chat_id'];
  else if (phone !== null) [id, idKind] = [phone, 'phone'];
  else if (plainId !== null) [id, idKind] = [plainId, 'id'];

  const hasTopLevel = Object.keys(message).length > 0 || Object.keys(chat).length > 0 || Object.keys(account).length > 0;
  const shape = hasTopLevel ? 'top-level' : Object.keys(data).length > 0 ? 'nested' : 'unknown';

  return {
    eventType,
    id,
    idKind,
    chatId,
    chatName: first(chat['full_name'], data['chat_name']),
    text: typeof message['text'] === 'string' ? message['text'] : typeof data['text'] === 'string' ? data['text'] : null,
    shape,
  };
}
