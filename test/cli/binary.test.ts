import { describe, it } from 'vitest';

// Spawned-binary tests (bin/svc.js over dist/) come once the engine, HTTP server and build are stable in
// `npm test`; they complement the in-process tests the way Prism's harness does. Planned cases:
describe('svc binary (spawned)', () => {
  it.todo('binary: `svc send --phone +14155550123 --text Hi` works in a fresh SVC_HOME and exits 0');
  it.todo('binary: `svc send ... --json` prints only the data object on stdout');
  it.todo('binary: `svc serve --port 0 --data DIR` prints "listening on http://127.0.0.1:PORT"; SIGTERM exits 0, SIGINT 130');
  it.todo('binary: `svc admin workspace create --data DIR --name N --json`, then send with --base-url and --token');
  it.todo('binary: a bad --token against the server exits 4; a refused connection exits 1 with the serve hint');
});
