import type { Page } from '../wire/types.js';
import { invalid } from '../wire/errors.js';

export const PAGE_SIZE = 50;
/** Highest page number accepted; the HTTP query schema uses the same bound. */
export const MAX_PAGE = 1_000_000;

/** Reads one page (from 1) by asking for one row more than a page, to know whether another follows. */
export async function pageOf<Row, Item>(
  page: number,
  read: (limit: number, offset: number) => Promise<Row[]>,
  map: (row: Row) => Item | Promise<Item>,
): Promise<Page<Item>> {
  if (!Number.isSafeInteger(page) || page < 1 || page > MAX_PAGE) throw invalid(`page must be a whole number from 1 to ${MAX_PAGE}`);
  const rows = await read(PAGE_SIZE + 1, (page - 1) * PAGE_SIZE);
  const items: Item[] = [];
  for (const row of rows.slice(0, PAGE_SIZE)) items.push(await map(row));
  return { items, page, has_more_pages: rows.length > PAGE_SIZE };
}
