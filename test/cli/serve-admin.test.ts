import { describe, expect, it } from 'vitest';
import type { ServeOptions } from '../../src/cli/io.js';
import type { Engine } from '../../src/engine/engine-api.js';
import { sampleWorkspace } from '../support/fake-client.js';
import { interrupts, runSvc } from '../support/run-cli.js';

/** Just enough of an Engine for admin commands; records calls and whether it was closed. */
function fakeEngine() {
  const calls: unknown[] = [];
  const state = { closed: false, dataDir: '' };
  const engine = {
    admin: {
      createWorkspace: async (input: unknown) => (calls.push(['create', input]), { workspace_id: 2, token: 'tok-new-ws' }),
      updateWorkspace: async (id: number, input: unknown) => (calls.push(['update', id, input]), sampleWorkspace()),
    },
    close: async () => {
      state.closed = true;
    },
  } as unknown as Engine;
  const open = async (opts: { dataDir: string }) => {
    state.dataDir = opts.dataDir;
    return engine;
  };
  return { open, calls, state };
}

describe('svc admin', () => {
  it('admin workspace create: --json prints workspace_id and token, then closes the engine', async () => {
    const engine = fakeEngine();
    const run = await runSvc(['admin', 'workspace', 'create', '--data', '/tmp/d', '--name', 'Acme', '--quota', '50', '--json'], {
      io: { openEngine: engine.open },
    });
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ workspace_id: 2, token: 'tok-new-ws' });
    expect(engine.calls).toEqual([['create', { name: 'Acme', quota: 50 }]]);
    expect(engine.state).toEqual({ closed: true, dataDir: '/tmp/d' });
  });

  it('admin workspace update: passes quota, plan and send interval', async () => {
    const engine = fakeEngine();
    const argv = ['admin', 'workspace', 'update', '2', '--data', '/tmp/d', '--quota', '10', '--plan', 'business', '--send-interval', '500'];
    const run = await runSvc(argv, { io: { openEngine: engine.open } });
    expect(run.code).toBe(0);
    expect(engine.calls).toEqual([['update', 2, { quota: 10, plan: 'business', send_interval_ms: 500 }]]);
    await runSvc(['admin', 'workspace', 'update', '2', '--send-interval', 'default'], { io: { openEngine: engine.open } });
    expect(engine.calls[1]).toEqual(['update', 2, { send_interval_ms: null }]);
  });

  it('admin: rejects --base-url, an unknown plan and an empty update with exit 2', async () => {
    const engine = fakeEngine();
    const remote = await runSvc(['admin', 'workspace', 'create', '--name', 'X', '--base-url', 'http://127.0.0.1:1/api'], {
      io: { openEngine: engine.open },
    });
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain('data directory');
    expect((await runSvc(['admin', 'workspace', 'update', '2', '--plan', 'gold'], { io: { openEngine: engine.open } })).code).toBe(2);
    expect((await runSvc(['admin', 'workspace', 'update', '2'], { io: { openEngine: engine.open } })).code).toBe(2);
    expect(engine.calls).toEqual([]);
  });
});

describe('svc serve', () => {
  it('serve: prints "listening on" with the real port, and closes on SIGTERM with exit 0', async () => {
    const signals = interrupts();
    let options: ServeOptions | undefined;
    let closed = false;
    const serve = async (opts: ServeOptions) => {
      options = opts;
      setTimeout(() => signals.fire('SIGTERM'), 5);
      return { url: 'http://127.0.0.1:43210/api', close: async () => void (closed = true) };
    };
    const run = await runSvc(
      ['serve', '--port', '0', '--data', '/tmp/srv', '--dev', '--webhook-retry-delays', '5,30', '--rate-limit', '100', '--public-url', 'http://127.0.0.1:9'],
      { io: { serve, onInterrupt: signals.onInterrupt } },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('listening on http://127.0.0.1:43210');
    // Then where the APIs are, so the root is never mistaken for --base-url.
    expect(run.stdout).toContain('Public API   http://127.0.0.1:43210/api   (--base-url; OpenAPI: http://127.0.0.1:43210/api/openapi.json)');
    expect(run.stdout).toContain('Partner API  http://127.0.0.1:43210/partner');
    expect(closed).toBe(true);
    expect(options).toMatchObject({
      port: 0,
      host: '127.0.0.1',
      dataDir: '/tmp/srv',
      dev: true,
      webhookRetryDelaysMs: [5000, 30000],
      rateLimitPerMinute: 100,
      publicUrl: 'http://127.0.0.1:9',
    });
  });

  it('serve: Ctrl-C closes the server and exits 130', async () => {
    const signals = interrupts();
    let closed = false;
    const serve = async () => {
      setTimeout(() => signals.fire('SIGINT'), 5);
      return { url: 'http://127.0.0.1:8080', close: async () => void (closed = true) };
    };
    const run = await runSvc(['serve'], { io: { serve, onInterrupt: signals.onInterrupt } });
    expect(run.code).toBe(130);
    expect(closed).toBe(true);
  });

  it('serve: the request log goes to stderr, text by default, json or none with --log-format', async () => {
    const formats: unknown[] = [];
    const signals = interrupts();
    const serve = async (opts: ServeOptions) => {
      formats.push(opts.requestLog?.format ?? 'none');
      opts.requestLog?.write('a request line\n');
      setTimeout(() => signals.fire('SIGTERM'), 5);
      return { url: 'http://127.0.0.1:8080', close: async () => {} };
    };
    const io = { serve, onInterrupt: signals.onInterrupt };
    const text = await runSvc(['serve'], { io });
    expect(text.stderr).toBe('a request line\n');
    expect(text.stdout).not.toContain('a request line');
    await runSvc(['serve', '--log-format', 'json'], { io });
    await runSvc(['serve', '--log-format', 'none'], { io });
    expect(formats).toEqual(['text', 'json', 'none']);
    expect((await runSvc(['serve', '--log-format', 'xml'], { io })).code).toBe(2);
  });

  it('serve: rejects a bad port or retry list with exit 2', async () => {
    const serve = async () => Promise.reject(new Error('must not start'));
    expect((await runSvc(['serve', '--port', '70000'], { io: { serve } })).code).toBe(2);
    expect((await runSvc(['serve', '--webhook-retry-delays', '5,,30'], { io: { serve } })).code).toBe(2);
  });

  it('serve: SVC_SEND_LEASE_MS sets the send lease; absent leaves the engine default; junk exits 2', async () => {
    const signals = interrupts();
    const seen: ServeOptions[] = [];
    const serve = async (opts: ServeOptions) => {
      seen.push(opts);
      setTimeout(() => signals.fire('SIGTERM'), 5);
      return { url: 'http://127.0.0.1:8080', close: async () => undefined };
    };
    const io = { serve, onInterrupt: signals.onInterrupt };
    expect((await runSvc(['serve', '--port', '0'], { io, env: { SVC_SEND_LEASE_MS: '1500' } })).code).toBe(0);
    expect((await runSvc(['serve', '--port', '0'], { io })).code).toBe(0);
    expect(seen[0]?.sendLeaseMs).toBe(1500);
    expect(seen[1] !== undefined && 'sendLeaseMs' in seen[1]).toBe(false);
    const bad = await runSvc(['serve'], { io: { serve: async () => Promise.reject(new Error('must not start')) }, env: { SVC_SEND_LEASE_MS: 'soon' } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('SVC_SEND_LEASE_MS');
  });

  it('serve: --metrics-token (or SVC_METRICS_TOKEN) reaches the server and is never printed; a weak one or one with --no-metrics exits 2', async () => {
    const signals = interrupts();
    const seen: ServeOptions[] = [];
    const serve = async (opts: ServeOptions) => {
      seen.push(opts);
      setTimeout(() => signals.fire('SIGTERM'), 5);
      return { url: 'http://127.0.0.1:8080', close: async () => undefined };
    };
    const io = { serve, onInterrupt: signals.onInterrupt };
    const token = 'flag-token-0123456789abcdef';
    const flagged = await runSvc(['serve', '--metrics-token', token], { io, env: { SVC_METRICS_TOKEN: 'env-token-0123456789abcdef' } });
    expect(flagged.code).toBe(0);
    expect(seen[0]?.metricsToken).toBe(token);
    expect(flagged.stdout).toContain('/metrics   (bearer token required)');
    expect(flagged.stdout + flagged.stderr).not.toContain(token);
    expect((await runSvc(['serve'], { io, env: { SVC_METRICS_TOKEN: 'env-token-0123456789abcdef' } })).code).toBe(0);
    expect(seen[1]?.metricsToken).toBe('env-token-0123456789abcdef');
    expect((await runSvc(['serve'], { io, env: { SVC_METRICS_TOKEN: '' } })).code).toBe(0);
    expect(seen[2] !== undefined && 'metricsToken' in seen[2]).toBe(false);

    const refuse = async (args: string[], env: Record<string, string> = {}) => {
      const run = await runSvc(['serve', ...args], { io: { serve: async () => Promise.reject(new Error('must not start')) }, env });
      expect(run.code).toBe(2);
      return run.stderr;
    };
    expect(await refuse(['--metrics-token', 'short'])).not.toContain('short');
    expect(await refuse(['--metrics-token', 'has spaces in the middle of it'])).toContain('visible ASCII');
    expect(await refuse([], { SVC_METRICS_TOKEN: 'tiny' })).toContain('SVC_METRICS_TOKEN must be');
    expect(await refuse(['--no-metrics', '--metrics-token', token])).toContain('no effect with --no-metrics');
  });
});
