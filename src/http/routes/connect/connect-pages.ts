/**
 * How `/connect/...` fails. The people who open these links came from a QR code or a partner's app, not from
 * an API client: a browser gets a short page that says what happened and what to do, while an API client or
 * script (`Accept: application/json`, curl's `*\/*`) keeps the catalogue's JSON error body.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SvcError } from '../../../wire/errors.js';
import { renderCardPage } from '../../../partner/card-page.js';
import { connectPageHeaders, connectPageMode, type ConnectPageMode } from '../../../partner/connect-page.js';
import { prefersHtml } from '../../server/accept.js';
import { errorBody } from '../../server/errors.js';

const unknownLinkPage = (mode: ConnectPageMode): string =>
  renderCardPage({
    title: 'Link not found',
    mode,
    content: `<h1>This connection link does not work</h1>
<p class="big warn">Link not found</p>
<p>It may have been copied incompletely, or it was never issued. Open the whole link again, or ask whoever sent it
for a new one.</p>`,
  });

const UNKNOWN_LINK_HINT = 'open the whole link again, or ask whoever sent it for a new one';

/** 404 for a connection link that is unknown, cut short, or followed by a path the page does not have. */
export function sendUnknownLink(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (!prefersHtml(request)) {
    return reply.code(404).send(errorBody(new SvcError('not_found', 'connection link not found', { hint: UNKNOWN_LINK_HINT })));
  }
  // An embedded page (`?display_mode=embedding`) must stay framable, or the partner's app shows a blocked frame.
  const mode = connectPageMode((request.query as { display_mode?: string } | undefined)?.display_mode);
  return reply.code(404).headers(connectPageHeaders({ mode })).send(unknownLinkPage(mode));
}

/** The JSON answer for an expired or revoked link; browsers get the connection page itself, in its final state. */
export const goneLinkError = (state: 'expired' | 'revoked'): SvcError =>
  new SvcError('gone', `connection link ${state}`, { hint: 'ask for a new link; a new one replaces this one' });
