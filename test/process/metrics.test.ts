/** GET /metrics on a real `svc serve`: Prometheus text, no token unless one is set, outside the rate limit, with every promised series. */
import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/webhook-helpers.js';
import { ProcessSandbox, api, pollUntil } from '../support/svc-process.js';

describe('svc serve: GET /metrics', () => {
  let box: ProcessSandbox;
  let receiver: Receiver;
  afterEach(async () => {
    await receiver?.close();
    await box.cleanup();
  });

  it('exposes queue depths, oldest age, delivery and send latency, attempts by outcome, send queue and HTTP requests', async () => {
    box = new ProcessSandbox();
    receiver = await startReceiver();
    const dataDir = box.tempDir('svc-metrics-');
    const { token } = await box.createWorkspace(dataDir, 'Metrics');
    const server = await box.serve(dataDir, { args: ['--dev', '--rate-limit', '4'] });
    expect((await api(server, token, 'POST', '/sim/accounts/connect', { phone: '+15550005001' })).status).toBe(200);
    expect((await api(server, token, 'POST', '/api/webhooks', { event_type: 'message:received:new', url: `${receiver.url}/h` })).status).toBe(200);
    expect((await api(server, token, 'POST', '/sim/messages', { from: '+4915100001', to: '+15550005001', text: 'hi' })).status).toBe(200);
    expect((await api(server, token, 'POST', '/api/messages', { phone: '+14155550123', text: 'hello' })).status).toBe(200);
    await pollUntil('the delivery', async () => (receiver.requests.length > 0 ? true : undefined), { timeoutMs: 5000, intervalMs: 50 });

    // More scrapes than the per-minute limit allows requests: the scraper is never limited, and needs no token.
    let text = '';
    for (let i = 0; i < 5; i += 1) {
      const res = await fetch(`${server.url}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      text = await res.text();
    }
    await pollUntil('the attempt to be counted', async () => {
      text = await (await fetch(`${server.url}/metrics`)).text();
      return /svc_webhook_attempts_total\{outcome="succeeded"\} 1/.test(text) && /svc_send_latency_seconds_count\{outcome="sent"\} 1/.test(text) ? true : undefined;
    }, { timeoutMs: 5000, intervalMs: 100 });
    for (const series of [
      /svc_queue_depth\{queue="webhook_workspace",state="pending"\} 0/,
      /svc_queue_depth\{queue="webhook_listen",state="delivering"\} 0/,
      /svc_queue_depth\{queue="send",state="queued"\} \d+/,
      /svc_queue_depth\{queue="owner_mail",state="pending"\} 0/,
      /svc_queue_oldest_age_seconds\{queue="webhook_workspace"\} 0/,
      /svc_queue_oldest_age_seconds\{queue="send"\} [\d.]+/,
      /svc_webhook_delivery_latency_seconds_count 1/,
      /svc_send_latency_seconds_bucket\{le="\+Inf",outcome="sent"\} 1/,
      /svc_webhook_attempt_duration_seconds_bucket\{le="5"\} 1/,
      /svc_webhook_tenants_over_backlog_bound 0/,
      /svc_http_request_duration_seconds_count\{method="POST",route="\/sim\/messages",status="200"\} 1/,
      /svc_process_resident_memory_bytes \d+/,
    ]) expect(text).toMatch(series);
    // Route patterns, never raw URLs, tokens or tenants.
    expect(text).not.toContain(token);
    expect(text).not.toMatch(/workspace_id|\+1555/);
  });

  it('--no-metrics turns the endpoint off', async () => {
    box = new ProcessSandbox();
    const dataDir = box.tempDir('svc-metrics-off-');
    await box.createWorkspace(dataDir, 'Off');
    const server = await box.serve(dataDir, { args: ['--no-metrics'] });
    expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  });

  it('SVC_METRICS_TOKEN: /metrics answers 401 without the bearer token and 200 with it; the token is never printed', async () => {
    box = new ProcessSandbox();
    const dataDir = box.tempDir('svc-metrics-token-');
    await box.createWorkspace(dataDir, 'Token');
    const token = 'scraper-secret-0123456789abcdef';
    const server = await box.serve(dataDir, { env: { SVC_METRICS_TOKEN: token } });
    const refused = await fetch(`${server.url}/metrics`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const wrong = await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer scraper-secret-0123456789abcdeF' } });
    expect(wrong.status).toBe(401);
    const ok = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toMatch(/svc_queue_depth\{queue="send",state="queued"\} 0/);
    expect(server.output()).toContain('/metrics   (bearer token required)');
    const stopped = await box.stop(server);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout + stopped.stderr).not.toContain(token);
  });
});
