/**
 * JWT refusals and token rotation beyond test/partner/partner-http-auth.test.ts and partner-routes.test.ts:
 * hand-made `none` variants and stripped signatures, lifetimes measured from iat or from now, a token reused
 * after it expired, and rotation seen at once on every bearer area and by another engine on the same file.
 */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server/build-server.js';
import { signPartnerJwt } from '../../src/partner/partner-jwt-sign.js';
import { openEngine } from '../../src/runtime/open-engine.js';
import { tempDir } from '../support/run-cli.js';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx?.app.close();
  await fx?.engine.close();
});

const b64 = (value: object | string) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const nowSec = () => Math.floor(fx.clock.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({ partner_id: fx.partner.partner_id, iat: nowSec(), nbf: nowSec(), exp: nowSec() + 300, ...overrides });
/** A compact JWS with any header, HMAC-signed with `secret` (or with the given signature). */
function craft(header: object, payload: object, secret: string | null = fx.partner.partner_secret, signature?: string): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const sig = signature ?? (secret === null ? '' : createHmac('sha256', secret).update(input).digest('base64url'));
  return `${input}.${sig}`;
}

async function refusal(token: string, partnerId = fx.partner.partner_id) {
  const response = await fx.app.inject({ method: 'GET', url: '/partner/me', headers: { authorization: `Bearer ${token}`, 'x-svc-partner-id': partnerId } });
  return { status: response.statusCode, rule: response.statusCode === 401 ? (response.json() as { rule: string }).rule : `accepted ${response.statusCode}` };
}

describe('partner JWT refusals over HTTP', () => {
  it.each(['none', 'None', 'NONE', 'nOnE'])('GET /partner/me: alg %s with an empty signature is algorithm_not_allowed', async (alg) => {
    fx = await partnerFixture();
    expect(await refusal(craft({ alg, typ: 'JWT' }, claims(), null))).toEqual({ status: 401, rule: 'algorithm_not_allowed' });
  });

  it.each(['RS256', 'ES256', 'PS256', 'HS384', 'EdDSA'])('GET /partner/me: alg %s is algorithm_not_allowed even with an HMAC of the secret', async (alg) => {
    fx = await partnerFixture();
    expect(await refusal(craft({ alg, typ: 'JWT' }, claims()))).toEqual({ status: 401, rule: 'algorithm_not_allowed' });
  });

  it('GET /partner/me: HS256 with the signature stripped or replaced is invalid_credentials', async () => {
    fx = await partnerFixture();
    expect((await refusal(craft({ alg: 'HS256' }, claims(), null))).status).toBe(401);
    expect(await refusal(craft({ alg: 'HS256' }, claims(), null, 'AAAA'))).toEqual({ status: 401, rule: 'invalid_credentials' });
    // A valid signature of other claims, moved onto a payload naming a longer expiry.
    const [, , signature] = signPartnerJwt(fx.partner.partner_id, fx.partner.partner_secret, fx.clock).split('.');
    expect(await refusal(craft({ alg: 'HS256', typ: 'JWT' }, claims({ exp: nowSec() + 600 }), null, signature))).toEqual({ status: 401, rule: 'invalid_credentials' });
  });

  it('GET /partner/me: a critical header the server does not understand is refused', async () => {
    fx = await partnerFixture();
    expect((await refusal(craft({ alg: 'HS256', crit: ['exp-v2'], 'exp-v2': 1 }, claims()))).status).toBe(401);
  });

  it('GET /partner/me: lifetime_too_long measured from iat when nbf is absent, and from now when both are absent', async () => {
    fx = await partnerFixture();
    const { nbf: _nbf, ...fromIat } = claims({ exp: nowSec() + 15 * 60 + 1 });
    expect(await refusal(craft({ alg: 'HS256' }, fromIat))).toEqual({ status: 401, rule: 'lifetime_too_long' });
    const { nbf: _n, iat: _i, ...fromNow } = claims({ exp: nowSec() + 15 * 60 + 61 });
    expect(await refusal(craft({ alg: 'HS256' }, fromNow))).toEqual({ status: 401, rule: 'lifetime_too_long' });
    // The boundary itself is accepted, so the refusals above are about the length.
    expect((await refusal(craft({ alg: 'HS256' }, claims({ exp: nowSec() + 15 * 60 })))).status).not.toBe(401);
  });

  it('GET /partner/me: an exp that is not a number, or a partner_id that is not a string, is refused', async () => {
    fx = await partnerFixture();
    expect((await refusal(craft({ alg: 'HS256' }, claims({ exp: String(nowSec() + 300) })))).status).toBe(401);
    expect(await refusal(craft({ alg: 'HS256' }, claims({ partner_id: [fx.partner.partner_id] })))).toEqual({ status: 401, rule: 'partner_id_claim_missing' });
  });

  it('GET /partner/me: a token accepted now is refused as expired once the clock passes exp plus the skew', async () => {
    fx = await partnerFixture();
    const token = signPartnerJwt(fx.partner.partner_id, fx.partner.partner_secret, fx.clock);
    expect((await refusal(token)).status).toBe(200);
    fx.clock.advance(16 * 60 * 1000 + 61_000);
    expect(await refusal(token)).toEqual({ status: 401, rule: 'expired' });
  });

  it('GET /partner/me: the Partner ID header must match exactly (case and other partners)', async () => {
    fx = await partnerFixture();
    const token = signPartnerJwt(fx.partner.partner_id, fx.partner.partner_secret, fx.clock);
    expect((await refusal(token, fx.partner.partner_id.toUpperCase())).status).toBe(401);
    // Verified with the other partner's secret, so the signature is what fails.
    expect(await refusal(token, fx.other.partner_id)).toEqual({ status: 401, rule: 'invalid_credentials' });
    expect(await refusal(token, `${fx.partner.partner_id}, ${fx.other.partner_id}`)).toEqual({ status: 401, rule: 'invalid_credentials' });
  });
});

describe('Public API token rotation', () => {
  it('POST /partner/workspaces/:id/api-token: the old token fails on the very next request on /api, /sim and listen; twice rotated, both old ones fail', async () => {
    fx = await partnerFixture();
    const ws = (await fx.call('POST', '/workspaces', { display_name: 'R', seats_purchased: 1 })).body.data.workspace_id;
    const first = (await fx.call('GET', `/workspaces/${ws}/api-token`)).body.data.api_token as string;
    const second = (await fx.call('POST', `/workspaces/${ws}/api-token`)).body.data.api_token as string;
    const third = (await fx.call('POST', `/workspaces/${ws}/api-token`)).body.data.api_token as string;
    const probe = async (token: string) => {
      const statuses = [];
      for (const [method, url, payload] of [['GET', '/api/workspace'], ['GET', '/api/webhooks/listen/secret'], ['POST', '/sim/accounts/connect', { phone: '+15550006666' }]] as const) {
        const response = await fx.app.inject({ method, url, headers: { authorization: `Bearer ${token}` }, ...(payload ? { payload } : {}) });
        statuses.push(response.statusCode);
      }
      return statuses;
    };
    expect(await probe(first)).toEqual([401, 401, 401]);
    expect(await probe(second)).toEqual([401, 401, 401]);
    expect(await probe(third)).toEqual([200, 200, 200]);
  });

  it('rotation by another engine on the same database: the serving engine refuses the old token at once', async () => {
    const dataDir = tempDir('svc-rotate-');
    const serving = await openEngine({ dataDir });
    const admin = await openEngine({ dataDir });
    const app = buildServer({ engine: serving, rateLimitPerMinute: 0 });
    try {
      const partner = await admin.admin.createPartner({ name: 'P' });
      const created = await admin.partner(partner.partner_id).createWorkspace({ display_name: 'W', seats_purchased: 1 });
      const old = (await admin.partner(partner.partner_id).getApiToken(created.workspace_id)).api_token;
      const get = (token: string) => app.inject({ method: 'GET', url: '/api/workspace', headers: { authorization: `Bearer ${token}` } });
      expect((await get(old)).statusCode).toBe(200);
      const rotated = (await admin.partner(partner.partner_id).rotateApiToken(created.workspace_id)).api_token;
      expect((await get(old)).statusCode).toBe(401);
      expect((await get(rotated)).statusCode).toBe(200);
    } finally {
      await app.close();
      await admin.close();
      await serving.close();
    }
  });
});
