// Bundles the compiled CLI (dist/cli/main.js and everything it imports) into a few files, so `svc` starts by
// reading a handful of modules instead of ~60: module loading is most of its start-up time. Commands that are
// loaded lazily (serve, the engine, the Partner client) become chunks of their own and still load only when
// used. Packages stay external except the three every invocation loads (commander, chalk, and typebox, which
// builds the wire schemas when src/wire loads: ~700 modules unbundled, ~130 ms of every start).
import { readFileSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const bundled = new Set(['commander', 'chalk', 'typebox']);
const external = Object.keys(pkg.dependencies).filter((name) => !bundled.has(name));

// Chunk names carry content hashes: without a clean folder, every build would leave the last one's behind.
rmSync('dist/bundle', { recursive: true, force: true });
await build({
  entryPoints: { main: 'dist/cli/main.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: [...external, ...external.map((name) => `${name}/*`)],
  // commander is CommonJS: give the bundle a require for the node: built-ins it asks for.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  // Less to parse at every start; identifiers keep their names, so error names and messages read the same.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
});
