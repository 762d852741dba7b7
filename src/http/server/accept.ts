import type { FastifyRequest } from 'fastify';

/**
 * Whether the client asked for HTML before JSON: a browser (`text/html,...`) gets a page, curl (`*\/*`), API
 * clients and scripts (`application/json`) get the JSON envelope.
 */
export function prefersHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  const html = accept.indexOf('text/html');
  if (html === -1) return false;
  const json = accept.indexOf('application/json');
  return json === -1 || html < json;
}
