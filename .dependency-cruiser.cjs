/**
 * The import rules of ARCHITECTURE.md, checked by `npm run lint:imports` (part of `npm test`).
 * Floors, bottom first: wire < network, store < webhooks, partner < engine < workers < runtime < http, client
 * < cli. A folder imports only from its own floor's folder or below; the exceptions carry their reason.
 */
const folders = (...names) => `^src/(${names.join('|')})/`;

/**
 * What each folder must not import: every folder above it, and its neighbours on the same floor. The pure rules
 * also stay off what they do not need below them: neither reaches the network driver, and partner reaches only
 * wire (webhooks reaches store for the outbox's types alone, see the rule below).
 */
const floors = [
  { from: 'wire', notTo: ['network', 'store', 'webhooks', 'partner', 'engine', 'workers', 'runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'network', notTo: ['store', 'webhooks', 'partner', 'engine', 'workers', 'runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'store', notTo: ['network', 'webhooks', 'partner', 'engine', 'workers', 'runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'webhooks', notTo: ['network', 'partner', 'engine', 'workers', 'runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'partner', notTo: ['network', 'store', 'webhooks', 'engine', 'workers', 'runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'engine', notTo: ['workers', 'runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'workers', notTo: ['runtime', 'http', 'client', 'cli', 'testing'] },
  { from: 'runtime', notTo: ['http', 'client', 'cli', 'testing'] },
  { from: 'http', notTo: ['client', 'cli', 'testing'] },
  { from: 'client', notTo: ['http', 'cli', 'testing'] },
  { from: 'testing', notTo: ['cli', 'client'] },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle ties modules so that neither can be understood, tested or loaded alone.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    ...floors.map(({ from, notTo }) => ({
      name: `${from}-stays-on-its-floor`,
      severity: 'error',
      comment: `src/${from} imports nothing from a floor above it (ARCHITECTURE.md, the import table).`,
      from: { path: folders(from) },
      to: { path: folders(...notTo) },
    })),
    {
      name: 'webhooks-takes-its-outbox-as-a-part',
      severity: 'error',
      comment:
        'src/webhooks runs no SQL: the outbox (src/store/webhooks) is handed to the delivery worker by its caller, ' +
        'so src/webhooks imports only its types from src/store.',
      from: { path: '^src/webhooks/' },
      to: { path: '^src/store/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'engine-uses-only-the-pure-webhook-rules',
      severity: 'error',
      comment:
        'The engine builds, signs and checks webhooks but never sends one: undici, the dispatcher and the delivery ' +
        'worker stay with src/workers and src/webhooks, so a one-shot command never loads them.',
      from: { path: '^src/engine/' },
      to: { path: '^src/webhooks/', pathNot: '^src/webhooks/(payload|signature|url-policy|ip-address|retry-schedule)\\.ts$' },
    },
    {
      name: 'cli-reaches-only-client-and-runtime',
      severity: 'error',
      comment:
        'Commands are thin: they talk to a client (local engine or remote server) and to runtime entry points. ' +
        'One exception: `svc serve` loads the HTTP server (src/http/serve.ts), the composition root of the server.',
      from: { path: '^src/cli/' },
      to: { path: folders('engine', 'store', 'webhooks', 'partner', 'workers', 'network', 'http', 'testing'), pathNot: '^src/http/serve\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
