/** The error catalogue lives in the bottom layer (src/wire/errors.ts) so stores can raise it too. */
export * from '../wire/errors.js';
