import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { partnerFixture } from '../support/partner-fixtures.js';
import { STORES, storeDatabase, type Store } from '../support/store-engine.js';
import { RUNS, expectAlive, expectCleanRefusal, hostileBody, hostileId } from '../support/hostile-input.js';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
type Route = [method: Method, path: (id: string, userId: string) => string];

// The whole suite runs once per store, so both stores are held to one rule.
for (const store of STORES) describe(`on ${store}`, () => hostilePartnerSuite(store));

function hostilePartnerSuite(store: Store): void {
  let fx: Awaited<ReturnType<typeof partnerFixture>>;
  let storeDb: Awaited<ReturnType<typeof storeDatabase>> | undefined;
  let workspaceId = '';
  let userId = '';
  let hookId = '';
  let deliveryId = '';
  const servedRoutes: string[] = [];

  /** Every Partner API route; `id` is a workspace id, or a subscription id under /webhooks. */
  const PARTNER_ROUTES: Route[] = [
    ['GET', () => '/partner/me'],
    ['POST', () => '/partner/workspaces'],
    ['GET', (id) => `/partner/workspaces/${id}`],
    ['PATCH', (id) => `/partner/workspaces/${id}`],
    ['POST', (id) => `/partner/workspaces/${id}/users`],
    ['GET', (id) => `/partner/workspaces/${id}/users`],
    ['POST', (id, user) => `/partner/workspaces/${id}/users/${user}/qr`],
    ['POST', (id, user) => `/partner/workspaces/${id}/users/${user}/messenger/disconnect`],
    ['GET', (id) => `/partner/workspaces/${id}/api-token`],
    ['POST', (id) => `/partner/workspaces/${id}/api-token`],
    ['GET', () => '/partner/webhooks'],
    ['POST', () => '/partner/webhooks'],
    ['GET', (id) => `/partner/webhooks/${id}`],
    ['PUT', (id) => `/partner/webhooks/${id}`],
    ['DELETE', (id) => `/partner/webhooks/${id}`],
    ['GET', (id) => `/partner/webhooks/${id}/secret`],
    ['GET', (id) => `/partner/webhooks/${id}/deliveries`],
    ['POST', (id, delivery) => `/partner/webhooks/${id}/deliveries/${delivery}/redeliver`],
    ['POST', (id) => `/partner/webhooks/${id}/test`],
    ['POST', () => '/partner/webhooks/trigger'],
    ['GET', () => '/partner/webhooks/listen/secret'],
    ['POST', () => '/partner/webhooks/listen'],
    ['GET', (id) => `/partner/webhooks/listen/${id}/stream`],
    ['POST', (id) => `/partner/webhooks/listen/${id}/results`],
    ['DELETE', (id) => `/partner/webhooks/listen/${id}`],
  ];

  /** Inputs a partner could also send on purpose: valid-looking bodies, so some requests reach the engine. */
  const plausibleBody = fc
    .record(
      {
        display_name: fc.oneof(fc.string({ maxLength: 300 }), fc.integer(), fc.constant(null)),
        seats_purchased: fc.oneof(fc.integer({ min: -5, max: 20 }), fc.double(), fc.string()),
        count: fc.oneof(fc.integer({ min: -2, max: 3 }), fc.constant('1'), fc.constant(1e9)),
        expires_in_hours: fc.oneof(fc.integer({ min: -1, max: 200 }), fc.constant('24')),
        unknown_field: fc.jsonValue({ maxDepth: 2 }),
        event_type: fc.constantFrom('messenger_account:connected', 'api-token:rotated', 'message:new', '', 'x'.repeat(500)),
        url: fc.oneof(fc.webUrl(), fc.constantFrom('http://127.0.0.1/x', 'https://10.0.0.1/', 'https://[::1]/', 'javascript:alert(1)')),
        enabled: fc.oneof(fc.boolean(), fc.constant('true'), fc.constant(1)),
      },
      { requiredKeys: [] },
    )
    .map((o) => JSON.stringify(o));

  // Real ids some of the time, so hostile bodies are judged by the route's rules rather than a 404.
  const anyId = (...real: Array<() => string>) => fc.oneof(hostileId, fc.constantFrom(...real).map((id) => id()));
  const contentType = fc.constantFrom('application/json', 'text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded');

  /** Header values that HTTP allows (visible ASCII), but that no correct partner sends. */
  const headerText = fc.string({ maxLength: 300, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) });

  const validHeaders = () => fx.headers();

  /** A Partner API refusal: 401 WITH the error body naming the rule (docs/api-behaviour.md). */
  function expectPartnerAuthRefusal(response: { statusCode: number; body: string }): void {
    expect(response.statusCode, response.body).toBe(401);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 'error', error_code: 'unauthorized' });
    expect(typeof body.rule).toBe('string');
    expect(String(body.message)).toContain(`(${String(body.rule)})`);
  }

  /** Any other Partner API answer: 2xx, or 4xx with the catalogue body; never 5xx. */
  function expectPartnerAnswer(response: { statusCode: number; body: string }): void {
    if (response.statusCode === 401) return expectPartnerAuthRefusal(response);
    expectCleanRefusal(response);
  }

  beforeAll(async () => {
    storeDb = await storeDatabase(store);
    fx = await partnerFixture({ database: storeDb.database });
    fx.app.addHook('onRoute', (route) => {
      if (route.config?.skipAuth !== true) for (const m of [route.method].flat()) if (m !== 'HEAD') servedRoutes.push(`${m} ${route.url}`);
    });
    await fx.app.ready();
    const hook = await fx.api.webhooks().create({ event_type: 'api-token:rotated', url: 'https://example.com/hook', enabled: true });
    hookId = String(hook.id);
    deliveryId = String((await fx.api.webhooks().test(hook.id)).id);
    const ws = await fx.call('POST', '/workspaces', { display_name: 'Target', seats_purchased: 50 });
    workspaceId = String(ws.body.data.workspace_id);
    const users = await fx.call('POST', `/workspaces/${workspaceId}/users`, { count: 1 });
    userId = String(users.body.data[0].user_id);
  });
  afterAll(async () => {
    await fx?.app.close();
    await fx?.engine.close();
    await storeDb?.drop();
  });

  describe('hostile input: Partner API with a valid partner JWT', () => {
    it('route table: every authenticated /partner route is exercised here', () => {
      const covered = PARTNER_ROUTES.map(([method, path]) => `${method} ${path(':id', ':user_id')}`.replace(/:id\/deliveries\/:user_id/, ':id/deliveries/:deliveryId'));
      expect(servedRoutes.filter((r) => r.startsWith('/partner', r.indexOf(' ') + 1) && !covered.includes(r))).toEqual([]);
    });

    it.each(PARTNER_ROUTES.map(([method, path]) => [method, path(':id', ':user_id'), path] as const))(
      '%s %s: any body, path id or content type gets a clean 4xx or a 2xx, never a 5xx',
      async (method, _name, path) => {
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(hostileBody, plausibleBody),
            anyId(() => workspaceId, () => hookId),
            anyId(() => userId, () => deliveryId),
            contentType,
            async (body, id, user, type) => {
              const headers = { ...validHeaders(), 'content-type': type };
              const payload = method === 'GET' ? {} : { payload: body };
              const response = await fx.app.inject({ method, url: path(id, user), headers, ...payload });
              expect(response.statusCode, `${method} ${path(id, user)}`).not.toBe(401);
              expectPartnerAnswer(response);
            },
          ),
          { numRuns: RUNS },
        );
        await expectAlive(fx.app);
      },
    );

    it('PATCH /partner/workspaces/:id: hostile bodies leave the workspace valid (name a string, seats >= seats in use)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.oneof(hostileBody, plausibleBody), async (body) => {
          const headers = { ...validHeaders(), 'content-type': 'application/json' };
          expectPartnerAnswer(await fx.app.inject({ method: 'PATCH', url: `/partner/workspaces/${workspaceId}`, headers, payload: body }));
          const ws = await fx.call('GET', `/workspaces/${workspaceId}`);
          expect(ws.status).toBe(200);
          expect(typeof ws.body.data.display_name).toBe('string');
          expect(ws.body.data.seats_purchased).toBeGreaterThanOrEqual(ws.body.data.seats_used);
        }),
        { numRuns: RUNS },
      );
    });
  });

  describe('hostile input: Partner API authentication headers', () => {
    // Names our partner but is signed with the other partner's secret.
    const foreignSecretJwt = () => `Bearer ${signPartnerJwt(fx.partner.partner_id, fx.other.partner_secret, fx.clock)}`;
    const authorization = fc.oneof(
      fc.constant(undefined),
      headerText,
      headerText.map((s) => `Bearer ${s}`),
      fc.constantFrom('Bearer ', 'Bearer a.b.c', 'Bearer ..', 'Basic dXNlcjpwYXNz', 'bearer'),
      fc.constant('x').map(() => foreignSecretJwt()),
      fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((parts) => `Bearer ${parts.join('.')}`),
    );
    const partnerIdHeader = fc.oneof(
      fc.constant(undefined),
      headerText,
      fc.constantFrom('', ' ', 'ptn_', 'ptn_nobody000', '../../etc/passwd', "' OR 1=1 --"),
      fc.constant('x').map(() => fx.other.partner_id),
    );

    it('any route: a hostile Authorization or X-SVC-Partner-Id is a 401 with a body naming the rule, before the body is read', async () => {
      await fc.assert(
        fc.asyncProperty(
          authorization,
          partnerIdHeader,
          fc.constantFrom(...PARTNER_ROUTES),
          hostileBody,
          async (auth, partnerId, [method, path], body) => {
            const headers: Record<string, string> = { 'content-type': 'application/json' };
            if (auth !== undefined) headers.authorization = auth;
            if (partnerId !== undefined) headers['x-svc-partner-id'] = partnerId;
            const payload = method === 'GET' ? {} : { payload: body };
            const response = await fx.app.inject({ method, url: path(workspaceId, userId), headers, ...payload });
            expectPartnerAuthRefusal(response);
          },
        ),
        { numRuns: RUNS * 2 },
      );
      await expectAlive(fx.app);
    });

    it("any route: a valid JWT with a hostile X-SVC-Partner-Id is refused (header and claim must agree)", async () => {
      await fc.assert(
        fc.asyncProperty(partnerIdHeader, fc.constantFrom(...PARTNER_ROUTES), async (partnerId, [method, path]) => {
          const headers: Record<string, string> = { authorization: validHeaders().authorization };
          if (partnerId !== undefined) headers['x-svc-partner-id'] = partnerId;
          const response = await fx.app.inject({ method, url: path(workspaceId, userId), headers });
          expectPartnerAuthRefusal(response);
        }),
        { numRuns: RUNS },
      );
    });
  });

  describe('hostile input: QR scan and connection pages (no partner auth)', () => {
    const hostileCode = fc.oneof(
      hostileId,
      fc.string({ minLength: 16, maxLength: 200 }).map((s) => encodeURIComponent(s)),
      fc.stringMatching(/^[A-Za-z0-9_-]{16,128}$/),
      fc.constantFrom('A'.repeat(129), 'A'.repeat(300), '%2E%2E%2F%2E%2E%2Fetc', '%00'.repeat(20), `${'a'.repeat(16)}%0d%0aX-Injected:1`),
    );

    it('GET /connect/:code and /connect/:code/events: a hostile code is a clean 4xx, never a page or a stream', async () => {
      await fc.assert(
        fc.asyncProperty(hostileCode, fc.constantFrom('', '/events', '?display_mode=embedding', '/events?x=1'), async (code, suffix) => {
          const response = await fx.app.inject({ method: 'GET', url: `/connect/${code}${suffix}` });
          expect(response.statusCode, `/connect/${code}${suffix}`).toBeGreaterThanOrEqual(400);
          expectCleanRefusal(response, false);
        }),
        { numRuns: RUNS * 2 },
      );
      await expectAlive(fx.app);
    });

    it('POST /sim/scan: any body gets a clean 4xx and connects nothing', async () => {
      const scanBody = fc.oneof(
        hostileBody,
        fc.record({ qr_link: fc.oneof(fc.webUrl(), fc.string()), phone: fc.oneof(fc.string(), fc.constant('+15550009999')) }, { requiredKeys: ['phone'] }).map((o) => JSON.stringify(o)),
        fc.record({ payload: fc.oneof(fc.string(), fc.constant('svc1.x.1.y')), phone: fc.constant('+15550009999') }).map((o) => JSON.stringify(o)),
      );
      await fc.assert(
        fc.asyncProperty(scanBody, contentType, async (body, type) => {
          const response = await fx.app.inject({ method: 'POST', url: '/sim/scan', headers: { 'content-type': type }, payload: body });
          expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
          expectCleanRefusal(response, false);
        }),
        { numRuns: RUNS * 2 },
      );
      const users = await fx.call('GET', `/workspaces/${workspaceId}/users`);
      expect(users.body.data.items.every((u: { messenger_account: unknown }) => u.messenger_account === null)).toBe(true);
      await expectAlive(fx.app);
    });
  });
}
