import { defineConfig } from 'vitest/config';

// Only the vitest file: test/app.node.test.mjs is for `node --test`.
export default defineConfig({ test: { include: ['test/*.vitest.test.mjs'] } });
