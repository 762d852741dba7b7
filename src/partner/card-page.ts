/**
 * Pages other than a live connection page that a person may open — the server's root, a connection link that
 * does not work — drawn as the same card from the same inline stylesheet, so they look like one service and
 * the connection page's Content-Security-Policy (which allows that stylesheet by hash) fits them too.
 */
import { CONNECT_PAGE_CSS } from './connect-page-assets.js';
import { escapeHtml, type ConnectPageMode } from './connect-page.js';

export interface CardPageInput {
  title: string;
  mode: ConnectPageMode;
  /** The card's content, HTML: whatever it holds from outside must be escaped with `escapeHtml`. */
  content: string;
  /** A wider card, for a list of addresses. */
  wide?: boolean;
}

/** A full HTML page holding one card; no script, nothing external. */
export function renderCardPage(input: CardPageInput): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(input.title)}</title>
<style>${CONNECT_PAGE_CSS}</style>
</head>
<body data-mode="${input.mode}">
<main${input.wide === true ? ' class="wide"' : ''}>
${input.content}
</main>
</body>
</html>
`;
}
