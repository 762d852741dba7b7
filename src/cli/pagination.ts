import type { Page } from '../wire/types.js';
import type { Output } from './output.js';

/** Tells a human on stderr that more pages exist and how to get the next one. */
export function notePage(output: Output, page: Page<unknown>, command: string): void {
  if (page.has_more_pages) output.note(`more results: ${command} --page ${page.page + 1}`);
}
