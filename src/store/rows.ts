/**
 * The shapes of the rows that travel between the stores and the layers above, with no import of their own: the
 * deferred writes of a transaction name them too, below every store that reads them.
 */
import type { MessageStatus } from '../wire/types.js';

export interface AccountRow {
  id: number;
  workspace_id: number;
  user_id: number | null;
  phone: string;
  full_name: string;
  email: string;
  status: 'connected' | 'disconnected' | 'suspended';
  connected_at: number | null;
  next_send_at: number;
  created_at: number;
}

export interface MessageRow {
  id: number;
  uid: string;
  workspace_id: number;
  chat_id: number;
  messenger_account_id: number;
  direction: 'sent' | 'received';
  status: MessageStatus;
  failure_reason: string | null;
  text: string | null;
  file_id: number | null;
  template_id: number | null;
  reply_to_id: number | null;
  credits: number;
  network_message_id: string | null;
  created_at: number;
  sent_at: number | null;
  file_uid: string | null;
  reply_to_uid: string | null;
  account_phone: string;
  contact_phone: string;
}

/**
 * A message leased to a send dispatcher, by the dispatcher's claim or by the accept that claimed it ahead: its
 * job, and its message and account as the claim reads them.
 */
export interface ClaimedSend {
  jobId: number;
  message: MessageRow;
  account: AccountRow;
}
