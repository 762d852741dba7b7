import { Option } from 'commander';
import type { Page } from '../wire/types.js';
import { usageError } from './errors.js';
import type { Output } from './output.js';
import { positiveInt } from './parse.js';

/** `--page N` and `--all`, as every list command takes them. */
export interface PageOptions {
  page?: number;
  all?: boolean;
}

/** `--page N` for a list command; `--all` goes with it. */
export const pageOption = (): Option => new Option('--page <n>', 'page number, from 1 (default 1)').argParser(positiveInt);
export const allOption = (): Option => new Option('--all', 'fetch every page and print them as one list');

// A bound on --all, so a list that keeps growing while it is read cannot keep it going: 500,000 items.
const MAX_PAGES = 10_000;

/**
 * One page, or with `--all` every page joined into one `{items, page, has_more_pages: false}`: the same shape
 * a script already parses, with nothing left to fetch.
 */
export async function fetchPages<T>(opts: PageOptions, fetch: (page: number) => Promise<Page<T>>): Promise<Page<T>> {
  if (opts.all !== true) return fetch(opts.page ?? 1);
  if (opts.page !== undefined) throw usageError('use either --page or --all, not both');
  const items: T[] = [];
  for (let number = 1; number <= MAX_PAGES; number++) {
    const page = await fetch(number);
    items.push(...page.items);
    if (!page.has_more_pages) return { items, page: page.page, has_more_pages: false };
  }
  return { items, page: MAX_PAGES, has_more_pages: true };
}

/** Tells a human on stderr that more pages exist and how to get the next one (or all of them). */
export function notePage(output: Output, page: Page<unknown>, command: string): void {
  if (page.has_more_pages) output.note(`more results: ${command} --page ${page.page + 1} (or --all for every page)`);
}
