/**
 * The hint of a route 404: what the caller most likely meant. Newcomers paste the server root as a base URL
 * (`/workspace` instead of `/api/workspace`), add a trailing slash, repeat `/api`, or misspell a resource; each
 * gets the route that exists, and anything else under an API gets its resources and its OpenAPI document.
 */
import { closest } from '../../wire/suggest.js';

/** What the hints need to know about the served routes. */
export interface RouteLookup {
  /** Methods served for a concrete path; empty when no route has it. */
  methodsOf(path: string): string[];
  /** Every route, its pattern Fastify style (`/api/chats/:id`). */
  routes(): Array<{ url: string; methods: string[] }>;
}

const AREAS = [
  { prefix: '/api', name: 'Public API' },
  { prefix: '/partner', name: 'Partner API' },
] as const;

/** `/api/chats/:id` as the OpenAPI document writes it: `/api/chats/{id}`. */
const display = (pattern: string): string => pattern.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/** The hint for `method path` (path without its query, already redacted) that matched no route. */
export function routeHint(routes: RouteLookup, method: string, path: string): string {
  const answer = (candidate: string, why: string[]): string | undefined => {
    const methods = routes.methodsOf(candidate);
    if (methods.includes(method)) return `${why.join('; ')}: ${method} ${candidate}`;
    return methods.length > 0 ? `${why.join('; ')}: ${candidate} answers ${methods.filter((m) => m !== 'HEAD').join(', ')}` : undefined;
  };
  // The slips a newcomer makes, undone one after another; each one undone is named in the hint.
  let normal = path;
  const why: string[] = [];
  const undo = (fixed: string, reason: string) => {
    if (fixed === normal) return;
    normal = fixed;
    why.push(reason);
  };
  if (normal.length > 1) undo(normal.replace(/\/+$/, '') || '/', 'drop the trailing slash');
  undo(normal.replace(/\/{2,}/g, '/'), 'the path has an empty segment');
  for (const area of AREAS) {
    if (normal.startsWith(`${area.prefix}${area.prefix}/`)) undo(normal.slice(area.prefix.length), `the path repeats ${area.prefix} (is it in the base URL twice?)`);
  }
  // Lower case last: ids may rightly hold capitals, so it is tried only when nothing else found the route.
  const lower = normal.toLowerCase();
  const tries: Array<[string, string[]]> = [[normal, why]];
  if (lower !== normal) tries.push([lower, [...why, 'paths are lower case']]);
  for (const [candidate, reasons] of tries) {
    const direct = candidate === path ? undefined : answer(candidate, reasons);
    if (direct !== undefined) return direct;
    const home = AREAS.find((a) => under(candidate, a.prefix));
    // Under no API: one is missing. Under the other API: a client pointed at the wrong one (`/partner/workspace`).
    const rest = home === undefined ? (candidate === '/' ? '' : candidate) : candidate.slice(home.prefix.length);
    for (const area of AREAS) {
      if (area === home) continue;
      const slip = home === undefined ? `the ${area.name} is under ${area.prefix}` : `that is a ${area.name} path, under ${area.prefix}`;
      const prefixed = answer(`${area.prefix}${rest}`, [...reasons, slip]);
      if (prefixed !== undefined) return prefixed;
    }
  }
  const area = AREAS.find((a) => under(lower, a.prefix));
  if (area === undefined) return 'this server serves /api (Public API) and /partner (Partner API); GET / lists its addresses';
  const document = `every ${area.name} route is in GET ${area.prefix}/openapi.json`;
  const near = nearestRoute(routes, normal, area.prefix);
  if (near !== undefined) return `did you mean ${near}? (${document})`;
  return `${area.prefix} has ${resources(routes, area.prefix).join(', ')}; ${document}`;
}

/** The route whose literal segments are closest to the path's, segment by segment (a typo in one of them). */
function nearestRoute(routes: RouteLookup, path: string, prefix: string): string | undefined {
  const segments = path.split('/');
  let best: { pattern: string; methods: string[]; score: number } | undefined;
  for (const { url: pattern, methods } of routes.routes()) {
    if (!under(pattern, prefix)) continue;
    const parts = pattern.split('/');
    if (parts.length !== segments.length) continue;
    let score = 0;
    for (let i = 0; i < parts.length && score !== Infinity; i++) {
      const part = parts[i]!;
      const segment = segments[i]!;
      if (part.startsWith(':') || part === segment) continue;
      score += closest(segment, [part]) === undefined ? Infinity : 1;
    }
    if (score > 0 && (best === undefined || score < best.score)) best = { pattern, methods, score };
  }
  if (best === undefined || best.score === Infinity) return undefined;
  return `${best.methods.filter((m) => m !== 'HEAD').join('|')} ${display(best.pattern)}`;
}

/** The first path segments under an area (`/api/chats`, `/api/messages`, ...), for a list in the hint. */
function resources(routes: RouteLookup, prefix: string): string[] {
  const names = new Set<string>();
  for (const { url: pattern } of routes.routes()) {
    if (!pattern.startsWith(`${prefix}/`)) continue;
    const first = pattern.slice(prefix.length + 1).split('/')[0];
    if (first !== undefined && first !== '' && !first.startsWith(':')) names.add(`${prefix}/${first}`);
  }
  return [...names].sort();
}
