/** Open event streams are capped per connection link, per listen session and per client address. */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { STREAMS_PER_CLIENT, STREAMS_PER_LINK, STREAMS_PER_LISTEN_SESSION, createStreamLimiter } from '../../src/http/server/stream-limits.js';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
const open: Array<{ body: { destroy(): void } }> = [];
afterEach(async () => {
  for (const stream of open.splice(0)) stream.body.destroy();
  await fx?.app.close();
  await fx?.engine.close();
});

async function listening(): Promise<string> {
  fx = await partnerFixture();
  await fx.app.listen({ port: 0, host: '127.0.0.1' });
  const address = fx.app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

async function newLink(users = 1): Promise<string[]> {
  const ws = (await fx.call('POST', '/workspaces', { display_name: 'S', seats_purchased: users })).body.data.workspace_id as number;
  const created = (await fx.call('POST', `/workspaces/${ws}/users`, { count: users })).body.data as Array<{ user_id: number }>;
  const links: string[] = [];
  for (const user of created) {
    const qr = await fx.call('POST', `/workspaces/${ws}/users/${user.user_id}/qr`, {});
    links.push(new URL(qr.body.data.qr_link as string).pathname);
  }
  return links;
}

async function stream(url: string, headers: Record<string, string> = {}) {
  const response = await request(url, { headers: { accept: 'text/event-stream', ...headers } });
  if (response.statusCode === 200) open.push(response);
  else await response.body.text().catch(() => undefined);
  return response;
}

describe('event stream caps', () => {
  it(`a connection link serves at most ${STREAMS_PER_LINK} streams; a closed one frees its place`, async () => {
    const base = await listening();
    const [path] = await newLink();
    for (let i = 0; i < STREAMS_PER_LINK; i += 1) expect((await stream(`${base}${path}/events`)).statusCode).toBe(200);
    const refused = await request(`${base}${path}/events`);
    expect(refused.statusCode).toBe(429);
    expect(await refused.body.json()).toMatchObject({ status: 'error', error_code: 'rate_limit_exceeded' });
    expect(refused.headers['retry-after']).toBe('10');
    open.shift()?.body.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await stream(`${base}${path}/events`)).statusCode).toBe(200);
  });

  it(`one client address holds at most ${STREAMS_PER_CLIENT} streams, whatever they watch`, async () => {
    const base = await listening();
    const links = await newLink(Math.ceil(STREAMS_PER_CLIENT / STREAMS_PER_LINK) + 1);
    let accepted = 0;
    let refused = 0;
    for (const path of links) {
      for (let i = 0; i < STREAMS_PER_LINK; i += 1) {
        const status = (await stream(`${base}${path}/events`)).statusCode;
        if (status === 200) accepted += 1;
        else if (status === 429) refused += 1;
      }
    }
    expect(accepted).toBe(STREAMS_PER_CLIENT);
    expect(refused).toBe(links.length * STREAMS_PER_LINK - STREAMS_PER_CLIENT);
  });

  it(`a listen session serves at most ${STREAMS_PER_LISTEN_SESSION} streams`, async () => {
    const base = await listening();
    const { token, workspace_id } = await fx.engine.admin.createWorkspace({ name: 'L' });
    const session = await fx.engine.listen(workspace_id).open({});
    const url = `${base}/api/webhooks/listen/${session.id}/stream`;
    const auth = { authorization: `Bearer ${token}` };
    for (let i = 0; i < STREAMS_PER_LISTEN_SESSION; i += 1) expect((await stream(url, auth)).statusCode).toBe(200);
    expect((await stream(url, auth)).statusCode).toBe(429);
  });

  it('the limiter counts nothing for a refused stream and releases once', () => {
    const limiter = createStreamLimiter();
    const key = { key: 'k', cap: 1, what: 'here' };
    const other = { key: 'o', cap: 5, what: 'there' };
    const release = limiter.open([key, other]);
    expect(() => limiter.open([other, key])).toThrow(/at most 1/);
    release();
    release();
    const again = limiter.open([key, other]);
    for (let i = 0; i < 4; i += 1) limiter.open([other]);
    expect(() => limiter.open([other])).toThrow(/at most 5/);
    again();
  });
});
