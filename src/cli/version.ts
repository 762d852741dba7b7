import { readFileSync } from 'node:fs';

// Same relative path from src/cli (tests) and dist/cli or dist/bundle (the binary).
/** svc's version, from package.json. */
export const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
