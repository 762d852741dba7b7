/**
 * Limits of every svc instance (docs/api-behaviour.md, Limits). The engine enforces
 * them; the CLI stops reading its input at them, so a huge file or an endless pipe never fills its memory.
 */

/** Most characters in a message text, counted as code points (an emoji is one character). */
export const MAX_TEXT_CHARACTERS = 10_000;

/** Largest file upload, in bytes (25 MiB). */
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
