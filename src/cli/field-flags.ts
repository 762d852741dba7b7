/**
 * The engine and the HTTP API name wire fields (`file_uid`, `event_type`); a CLI user typed flags. Error
 * messages shown by the CLI speak in flags: `--file-uid`, `--event`.
 */
const FIELD_FLAGS: Record<string, string> = {
  attachment_template_id: '--template',
  chat_name: '--chat-name',
  count: '--count',
  display_name: '--name',
  emoji: '--emoji',
  enabled: '--enable/--disable',
  event_type: '--event',
  events: '--events',
  expires_in_hours: '--expires-in-hours',
  file_uid: '--file-uid',
  from: '--from',
  label: '--label',
  name: '--name',
  page: '--page',
  phone: '--phone',
  plan: '--plan',
  reply_to: '--reply-to',
  responsible: '--to',
  seats_purchased: '--seats',
  text: '--text',
  url: '--url',
};

const field = (name: string): string | undefined => (Object.hasOwn(FIELD_FLAGS, name) ? FIELD_FLAGS[name] : undefined);

/**
 * Rewrites the field names of a validation message as flags: a `body field "x"` of the HTTP layer, a message
 * that starts with a field name, and snake_case field names anywhere (plain words like "text" only in the
 * first two places, so prose stays prose).
 */
export function inFlags(message: string): string {
  return message
    .replace(/^(?:body|query|params) field "([a-z_]+)"/, (whole, name: string) => field(name) ?? whole)
    .replace(/^([a-z_]+)\b/, (whole, name: string) => field(name) ?? whole)
    .replace(/\b([a-z]+(?:_[a-z]+)+)\b/g, (whole, name: string) => field(name) ?? whole);
}
