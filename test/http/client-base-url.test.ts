/** The HTTP clients given a server root or a wrong base URL: the root stands for its API; a route miss names the base to use. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/client/http-client.js';
import { createPartnerHttpClient } from '../../src/client/partner-http-client.js';
import { SvcError } from '../../src/wire/errors.js';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
let origin: string;
let token: string;
beforeAll(async () => {
  fx = await partnerFixture();
  origin = (await fx.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
  token = (await fx.api.getApiToken((await fx.api.createWorkspace({ display_name: 'W', seats_purchased: 1 })).workspace_id)).token;
});
afterAll(async () => {
  await fx.app.close();
  await fx.engine.close();
});

const failure = async (promise: Promise<unknown>): Promise<SvcError> => {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
};

const publicClient = (baseUrl: string) => createHttpClient({ baseUrl, token });
const partnerClient = (baseUrl: string) =>
  createPartnerHttpClient({ baseUrl, partnerId: fx.partner.partner_id, partnerSecret: fx.partner.partner_secret, clock: fx.clock });

describe('client base URL', () => {
  it('Public API client: the server root, with or without a slash, stands for /api', async () => {
    for (const base of [origin, `${origin}/`]) {
      const client = publicClient(base);
      expect(client.target).toBe(`${origin}/api`);
      expect((await client.getWorkspace()).id).toBeGreaterThan(0);
      await client.close();
    }
  });

  it('Partner API client: the server root stands for /partner', async () => {
    const client = partnerClient(origin);
    expect(client.target).toBe(`${origin}/partner`);
    expect(await client.describe()).toMatchObject({ partner_id: fx.partner.partner_id });
    await client.close();
  });

  it('Public API client: the server\'s route miss becomes a hint naming the /api base, with what the server said', async () => {
    const cases: Array<[string, string]> = [
      [`${origin}/v1`, 'this server serves /api (Public API) and /partner (Partner API); GET / lists its addresses'],
      [`${origin}/api/api`, 'the path repeats /api (is it in the base URL twice?): GET /api/workspace'],
      [`${origin}/partner`, 'that is a Public API path, under /api: GET /api/workspace'],
    ];
    for (const [base, serverSays] of cases) {
      const client = publicClient(base);
      const error = await failure(client.getWorkspace());
      expect(error.code, base).toBe('not_found');
      expect(error.message, base).toMatch(/^No route GET \/.*workspace$/);
      expect(error.hint, base).toContain(`${base} is not the /api base of this svc server: pass --base-url (SVC_BASE_URL) ${origin}/api, or just ${origin} (the server says: `);
      expect(error.hint, base).toContain(serverSays);
      await client.close();
    }
  });

  it('Public API client: a missing record keeps its own hint, not the base URL one', async () => {
    const client = publicClient(origin);
    const error = await failure(client.getChat(999));
    expect(error.code).toBe('not_found');
    expect(error.hint).not.toContain('base of this svc server');
    await client.close();
  });

  it('Partner API client: a route miss names the /partner base', async () => {
    const client = partnerClient(`${origin}/api`);
    const error = await failure(client.describe());
    expect(error.code).toBe('not_found');
    expect(error.hint).toContain(`${origin}/api is not the /partner base of this svc server: pass --partner-base-url (SVC_PARTNER_BASE_URL) ${origin}/partner, or just ${origin}`);
    await client.close();
  });
});
