/**
 * The NUL character (U+0000) in text. PostgreSQL cannot store it in a text column at all, and in SQLite it
 * cuts strings short for many readers, so svc holds one rule on both stores: no text value holds NUL.
 * Callers hear it as a validation error naming the field; data an older release stored is cleaned on its
 * way to PostgreSQL (`svc admin copy`) with `replaceNul`.
 */
import { SvcError } from './errors.js';

const NUL = '\u0000';
const ALL_NUL = /\u0000/g;

/** The rule as the API documents state it. */
export const NUL_RULE = 'No text value (in a body, a path or a query) may contain the NUL character (U+0000): such a request is refused with 400 validation_error.';

export const hasNul = (text: string): boolean => text.includes(NUL);

/** The replacement character (U+FFFD) stands where a NUL was. */
export const replaceNul = (text: string): string => text.replace(ALL_NUL, '\uFFFD');

/**
 * The refusal, e.g. `body field "text" must not contain the NUL character (U+0000)`; a NUL in `where` (a
 * key that holds one) is written as `\u0000`, so the message itself never carries one.
 */
export const nulRefused = (where: string): SvcError =>
  new SvcError('validation_error', `${where.replace(ALL_NUL, '\\u0000')} must not contain the NUL character (U+0000)`, {
    hint: 'remove the \\u0000 characters from the text; send binary content as a file',
  });

/**
 * The dotted path (`chat.name`; `""` for the value itself) of the first string in `value` that holds NUL, as
 * a value or as an object key; undefined when there is none.
 */
export function pathOfNul(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return hasNul(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  for (const [key, item] of entries) {
    const at = path === '' ? key : `${path}.${key}`;
    if (hasNul(key)) return at;
    const found = pathOfNul(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}
