/**
 * The request rules the engine enforces beyond the route schemas, written into the OpenAPI document so a
 * generated client or validator knows them. Each rule mirrors one check in the engine (named below), and
 * test/openapi/request-rules.test.ts sends samples to a live server to show the two agree.
 */
import type { UrlPolicyMode } from '../../webhooks/url-policy.js';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What the document needs to know about the server it describes. */
export interface RequestRuleOptions {
  webhookUrlPolicy: UrlPolicyMode;
}

// engine/messages.ts PHONE_LIKE after trim(); control characters (tab, newline...) are refused before it,
// so the surrounding whitespace is `\s` without them.
const SPACE = '[^\\S\\t\\n\\v\\f\\r]*';
export const PHONE_PATTERN = `^${SPACE}\\+?[0-9][0-9 ().-]{2,30}${SPACE}$`;

/** engine/context.ts maxTextLength, counted in characters (code points) as maxLength is. */
export const MAX_TEXT_LENGTH = 10_000;

/**
 * webhooks/url-policy.ts validateWebhookUrl, as far as a pattern can say it: an absolute http(s) URL whose
 * authority holds no user name or password; https only unless the server runs with --dev.
 */
export const webhookUrlPattern = (mode: UrlPolicyMode): string => `^${mode === 'dev' ? 'https?' : 'https'}://[^/?#@\\s]+([/?#]\\S*)?$`;

const URL_RULES: Record<UrlPolicyMode, string> = {
  strict: 'an absolute https URL without user name or password, whose host is public (not localhost, *.local, *.internal, a name without a dot, or a private address)',
  dev: 'an absolute http or https URL without user name or password (this server runs with --dev: http and private hosts are allowed)',
};

/** Writes the rules of operation `operationId` into its request body schema (in place). */
export function stateRequestRules(operationId: string, body: Doc | undefined, options: RequestRuleOptions): void {
  const content = body?.content?.['application/json'];
  const schema = content?.schema;
  if (schema?.properties === undefined) return;
  const props = schema.properties;
  if (operationId.startsWith('send')) {
    if (props.phone !== undefined) {
      props.phone.pattern = PHONE_PATTERN;
      props.phone.description = `${props.phone.description ?? ''}; a value of this shape that is no valid number fails later with failure_reason invalid_number`;
    }
    if (props.messenger_account_phone !== undefined) {
      // "" means the default sender, as leaving it out does.
      props.messenger_account_phone.pattern = `^$|${PHONE_PATTERN}`;
    }
    if (props.text !== undefined) props.text.maxLength = MAX_TEXT_LENGTH;
    // engine/messages.ts acceptOutgoing: text (non-empty), file_uid or attachment_template_id; text may come
    // with either attachment, the two attachments never together. Each variant is a whole object type inside
    // allOf, so generators (openapi-typescript) make it `fields & (A | B | C)`.
    content.schema = {
      allOf: [
        schema,
        {
          anyOf: [
            { type: 'object', required: ['text'], properties: { text: { type: 'string', minLength: 1 } } },
            { type: 'object', required: ['file_uid'], properties: { file_uid: { type: 'string' } } },
            { type: 'object', required: ['attachment_template_id'], properties: { attachment_template_id: { type: 'integer' } } },
          ],
        },
      ],
      not: { type: 'object', required: ['file_uid', 'attachment_template_id'] },
    };
  }
  if (props.url !== undefined && /Webhook$/.test(operationId)) {
    props.url.format = 'uri';
    props.url.pattern = webhookUrlPattern(options.webhookUrlPolicy);
    props.url.description = `Endpoint that receives the POSTs: ${URL_RULES[options.webhookUrlPolicy]}. Host names are checked again when a delivery connects.`;
  }
}
