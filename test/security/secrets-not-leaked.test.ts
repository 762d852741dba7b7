import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/create-client.js';
import { buildServer } from '../../src/http/server/build-server.js';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { runSvc, tempDir } from '../support/run-cli.js';
import { TOKEN, auth, createFakeEngine } from '../support/fake-engine.js';
import { testEngine } from '../support/test-engine.js';
import { fakeSender } from '../support/webhook-engine.js';

/** Everything the server, the engine and the CLI wrote that is not an intended answer. */
const logs: string[] = [];
const sink = { write: (line: string) => void logs.push(line) };
const engineLogger = { info: (m: string, f?: object) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`), error: (m: string, f?: object) => void logs.push(`${m} ${JSON.stringify(f ?? {})}`) };
/** Bodies of error answers (4xx/5xx) and of answers that must not carry secrets. */
const bodies: Array<{ what: string; body: string }> = [];
/** Named secret values seen during the run. */
const secrets: Record<string, string> = {};

const sender = fakeSender();
const t = await testEngine({ webhookSend: sender.send, logger: engineLogger });
let app: FastifyInstance;
let origin = '';

async function call(what: string, method: string, url: string, headers: Record<string, string> = {}, payload?: object, intended = false) {
  const response = await app.inject({ method: method as 'GET', url, headers, ...(payload === undefined ? {} : { payload }) });
  if (!intended || response.statusCode >= 400) bodies.push({ what: `${what} (${response.statusCode})`, body: `${response.body} ${JSON.stringify(response.headers)}` });
  return response;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const cli = (args: string[], env: Record<string, string> = {}) => runSvc(args, { io: { createClient }, env: { SVC_CONFIG_DIR: tempDir('svc-sec-conf-'), ...env } });

beforeAll(async () => {
  app = buildServer({ engine: t.engine, rateLimitPerMinute: 0, logger: true, logStream: sink, onInternalError: (e, r) => logs.push(`${r.method} ${r.url} ${String(e)}`) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const token = (secrets.token = t.local.token);
  secrets.invalidToken = 'svc_invalid_token_0123456789abcdefghijkl';

  // Public API: valid and invalid tokens, a token in a query string, errors of each kind.
  await call('valid token', 'GET', '/api/workspace', bearer(token), undefined, true);
  await call('invalid token', 'GET', '/api/workspace', bearer(secrets.invalidToken));
  await call('token in query', 'GET', `/api/nothing?token=${token}&signature=${token}`, bearer(token));
  await call('404 record', 'GET', '/api/messages/no-such-uid', bearer(token));
  await call('400 body', 'POST', '/api/messages', bearer(token), { phone: 12 });

  // Webhook subscription secret and a signed delivery.
  const created = (await call('create webhook', 'POST', '/api/webhooks', bearer(token), { event_type: 'message:new', url: 'https://example.com/hook', enabled: true }, true)).json();
  secrets.webhookSecret = created.data.secret;
  await call('get webhook', 'GET', `/api/webhooks/${created.data.id}`, bearer(token));
  await call('list webhooks', 'GET', '/api/webhooks', bearer(token));
  await call('webhook secret', 'GET', `/api/webhooks/${created.data.id}/secret`, bearer(token), undefined, true);
  await call('test event', 'POST', `/api/webhooks/${created.data.id}/test`, bearer(token));
  await t.engine.workers.runDue();
  secrets.webhookSignature = sender.sent[0]!.headers['webhook-signature']!.split(',')[1]!;
  await call('deliveries', 'GET', `/api/webhooks/${created.data.id}/deliveries`, bearer(token));
  secrets.listenSecret = (await call('listen secret', 'GET', '/api/webhooks/listen/secret', bearer(token), undefined, true)).json().data.secret;

  // A pre-signed download, fetched with its signature and with a wrong one.
  const file = await t.api.uploadFile({ filename: 'f.txt', mimetype: 'text/plain', content: Buffer.from('f') });
  const url = new URL((await call('get file', 'GET', `/api/files/${file.uid}`, bearer(token), undefined, true)).json().data.temporary_download_url);
  secrets.downloadSignature = url.searchParams.get('signature')!;
  await call('download', 'GET', `${url.pathname}${url.search}`, {}, undefined, true);
  await call('bad download', 'GET', `${url.pathname}?expires=${url.searchParams.get('expires')}&signature=${secrets.downloadSignature.slice(0, -2)}xx`);

  // Partner API: a valid and a bad JWT, the secret, a rotated token, a QR link code.
  const partner = await t.engine.admin.createPartner({ name: 'P' });
  secrets.partnerSecret = partner.partner_secret;
  const jwt = signPartnerJwt(partner.partner_id, partner.partner_secret, t.clock);
  secrets.partnerJwtSignature = jwt.split('.')[2]!;
  const badJwt = signPartnerJwt(partner.partner_id, 'psk_wrong_secret_0123456789abcdef', t.clock);
  secrets.badJwt = badJwt;
  const p = { ...bearer(jwt), 'x-svc-partner-id': partner.partner_id };
  await call('bad jwt', 'GET', '/partner/me', { ...bearer(badJwt), 'x-svc-partner-id': partner.partner_id });
  await call('jwt wrong partner', 'GET', '/partner/me', { ...bearer(jwt), 'x-svc-partner-id': 'ptn_nobody000' });
  const ws = (await call('create ws', 'POST', '/partner/workspaces', p, { display_name: 'W', seats_purchased: 2 }, true)).json().data.workspace_id;
  secrets.partnerWsToken = (await call('get token', 'GET', `/partner/workspaces/${ws}/api-token`, p, undefined, true)).json().data.api_token;
  secrets.rotatedToken = (await call('rotate', 'POST', `/partner/workspaces/${ws}/api-token`, p, undefined, true)).json().data.api_token;
  await call('old token', 'GET', '/api/workspace', bearer(secrets.partnerWsToken!));
  const user = (await call('users', 'POST', `/partner/workspaces/${ws}/users`, p, { count: 1 }, true)).json().data[0].user_id;
  const qr = new URL((await call('qr', 'POST', `/partner/workspaces/${ws}/users/${user}/qr`, p, {}, true)).json().data.qr_link);
  secrets.connectCode = qr.pathname.split('/').pop()!;
  await call('connect page', 'GET', `${qr.pathname}?display_mode=embedding`, {}, undefined, true);
  await call('partner 400', 'PATCH', `/partner/workspaces/${ws}`, p, { seats_purchased: 'many' });
});
afterAll(async () => {
  await app.close();
  await t.engine.close();
});

function expectNoSecret(texts: Array<{ what: string; body: string }>) {
  const found = texts.flatMap(({ what, body }) =>
    Object.entries(secrets).filter(([, value]) => value !== '' && body.includes(value)).map(([name]) => `${name} in ${what}`),
  );
  expect(found).toEqual([]);
}

describe('secrets in logs and error answers', () => {
  it('request log: written, but holds no token, JWT, secret, signature or connection code', () => {
    expect(logs.length).toBeGreaterThan(20);
    expect(logs.join('\n')).toContain('/api/webhooks');
    expect(Object.keys(secrets)).toHaveLength(12);
    for (const [name, value] of Object.entries(secrets)) expect([name, typeof value, value.length > 10]).toEqual([name, 'string', true]);
    expectNoSecret(logs.map((line, i) => ({ what: `log line ${i}: ${line.slice(0, 160)}`, body: line })));
  });

  it('error answers and non-secret reads: no token, secret or signature in any body or header', () => {
    expect(bodies.length).toBeGreaterThan(10);
    expectNoSecret(bodies);
  });

  it('500: an unexpected error is logged without the token, the signature or the error text in the answer', async () => {
    const lines: string[] = [];
    const engine = createFakeEngine();
    const server = buildServer({ engine, rateLimitPerMinute: 0, logger: true, logStream: { write: (l) => void lines.push(l) } });
    engine.failNext(new Error('database exploded'));
    const response = await server.inject({ method: 'GET', url: '/api/workspace?signature=sig_abcdef0123456789', headers: auth() });
    await server.close();
    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('exploded');
    expect(lines.join('\n')).toContain('database exploded');
    expect(lines.join('\n')).not.toContain(TOKEN);
    expect(lines.join('\n')).not.toContain('sig_abcdef0123456789');
  });
});

describe('secrets in CLI errors', () => {
  it('svc workspace --token BAD: the refusal names no token, on stderr or with --json', async () => {
    for (const json of [[], ['--json']]) {
      const run = await cli(['workspace', '--base-url', `${origin}/api`, '--token', secrets.invalidToken!, ...json]);
      expect(run.code).toBe(4);
      expect(`${run.stdout}${run.stderr}`).not.toContain(secrets.invalidToken);
    }
  });

  it('svc send --token T against an unreachable server: the error names no token', async () => {
    const run = await cli(['send', '--phone', '+14155550123', '--text', 'x', '--base-url', 'http://127.0.0.1:1/api', '--token', secrets.token!]);
    expect(run.code).not.toBe(0);
    expect(run.stderr.length).toBeGreaterThan(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(secrets.token);
  });

  it('svc login --token BAD: refused without echoing the token; a good login is saved but profile show hides it', async () => {
    const env = { SVC_CONFIG_DIR: tempDir('svc-sec-login-') };
    const bad = await cli(['login', '--base-url', `${origin}/api`, '--token', secrets.invalidToken!], env);
    expect(bad.code).toBe(4);
    expect(`${bad.stdout}${bad.stderr}`).not.toContain(secrets.invalidToken);
    expect((await cli(['login', '--base-url', `${origin}/api`, '--token', secrets.token!], env)).code).toBe(0);
    const shown = await cli(['profile', 'show', '--json'], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).not.toContain(secrets.token);
    // Asked for explicitly, it is printed: the check above can fail.
    expect((await cli(['profile', 'show', '--show-token', '--json'], env)).stdout).toContain(secrets.token);
  });

  it('svc webhooks get ID: the secret only with --show-secret', async () => {
    const remote = ['--base-url', `${origin}/api`, '--token', secrets.token!];
    const id = String((await t.engine.webhooks(t.local.workspace_id).list(1)).items[0]!.id);
    const plain = await cli(['webhooks', 'get', id, ...remote]);
    expect(plain.code).toBe(0);
    expect(`${plain.stdout}${plain.stderr}`).not.toContain(secrets.webhookSecret);
    expect((await cli(['webhooks', 'get', id, '--show-secret', ...remote])).stdout).toContain(secrets.webhookSecret);
  });
});
