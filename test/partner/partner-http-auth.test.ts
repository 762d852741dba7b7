import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it } from 'vitest';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx?.app.close();
  await fx?.engine.close();
});

const nowSec = () => Math.floor(fx.clock.now() / 1000);
const claims = (overrides: Record<string, unknown> = {}) => ({
  partner_id: fx.partner.partner_id,
  iat: nowSec(),
  nbf: nowSec(),
  exp: nowSec() + 300,
  ...overrides,
});
/** Signed with jsonwebtoken, a different library from the server's jose. */
const foreign = (payload: object, secret = fx.partner.partner_secret, algorithm: jwt.Algorithm = 'HS256') =>
  jwt.sign(payload, secret, { algorithm });

async function get(headers: Record<string, string | undefined>) {
  const clean = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const response = await fx.app.inject({ method: 'GET', url: '/partner/me', headers: clean });
  return { status: response.statusCode, body: response.body === '' ? null : (response.json() as Record<string, unknown>) };
}

// null leaves the header out (undefined would pick the default).
const withToken = (token: string | undefined, partnerId: string | null = fx.partner.partner_id) => ({
  authorization: token === undefined ? undefined : `Bearer ${token}`,
  'x-svc-partner-id': partnerId ?? undefined,
});

async function expectRule(headers: Record<string, string | undefined>, rule: string) {
  const { status, body } = await get(headers);
  expect(status).toBe(401);
  expect(body).toMatchObject({ status: 'error', error_code: 'unauthorized', rule });
  expect(String(body?.['message'])).toContain(`(${rule})`);
}

describe('partner HTTP auth: acceptance', () => {
  it('GET /partner/me: accepts a token signed with jsonwebtoken', async () => {
    fx = await partnerFixture();
    const { status, body } = await get(withToken(foreign(claims())));
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'ok', data: { partner_id: fx.partner.partner_id, name: 'Acme' } });
  });

  it('GET /partner/openapi.json: served without a token and lists the partner paths', async () => {
    fx = await partnerFixture();
    const response = await fx.app.inject({ method: 'GET', url: '/partner/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/workspaces', '/workspaces/{id}', '/workspaces/{id}/users', '/workspaces/{id}/users/{user_id}/qr']),
    );
  });
});

describe('partner HTTP auth: each refusal is a 401 naming its rule', () => {
  it('missing_authorization: no Authorization header', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(undefined), 'missing_authorization');
  });

  it('missing_partner_id_header: no X-SVC-Partner-Id', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(foreign(claims()), null), 'missing_partner_id_header');
  });

  it('algorithm_not_allowed: alg none', async () => {
    fx = await partnerFixture();
    const unsigned = jwt.sign(claims(), '', { algorithm: 'none' });
    await expectRule(withToken(unsigned), 'algorithm_not_allowed');
  });

  it('algorithm_not_allowed: HS512 with the right secret', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(foreign(claims(), fx.partner.partner_secret, 'HS512')), 'algorithm_not_allowed');
  });

  it('invalid_signature: signed with another secret', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(foreign(claims(), fx.other.partner_secret)), 'invalid_credentials');
  });

  it('expired: exp more than the skew in the past', async () => {
    fx = await partnerFixture();
    const token = foreign(claims({ iat: nowSec() - 400, nbf: nowSec() - 400, exp: nowSec() - 61 }));
    await expectRule(withToken(token), 'expired');
  });

  it('not_yet_valid: nbf beyond the skew in the future', async () => {
    fx = await partnerFixture();
    const token = foreign(claims({ iat: nowSec(), nbf: nowSec() + 120, exp: nowSec() + 300 }));
    await expectRule(withToken(token), 'not_yet_valid');
  });

  it('lifetime_too_long: more than 15 minutes between nbf and exp', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(foreign(claims({ exp: nowSec() + 15 * 60 + 1 }))), 'lifetime_too_long');
  });

  it('exp_required: a token without exp', async () => {
    fx = await partnerFixture();
    const { exp: _exp, ...noExp } = claims();
    await expectRule(withToken(foreign(noExp)), 'exp_required');
  });

  it('partner_id_claim_missing: no partner_id claim', async () => {
    fx = await partnerFixture();
    const { partner_id: _id, ...noId } = claims();
    await expectRule(withToken(foreign(noId)), 'partner_id_claim_missing');
  });

  it('partner_id_mismatch: claim names another partner than the header', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(foreign(claims({ partner_id: fx.other.partner_id }))), 'partner_id_mismatch');
  });

  it('unknown_partner: a Partner ID nobody has', async () => {
    fx = await partnerFixture();
    await expectRule(withToken(foreign(claims({ partner_id: 'ptn_nobody000' })), 'ptn_nobody000'), 'invalid_credentials');
  });

  it('malformed_token: not a JWT', async () => {
    fx = await partnerFixture();
    await expectRule(withToken('not-a-jwt'), 'malformed_token');
  });

  it('refusal: a POST with a bad token is refused before its body is validated', async () => {
    fx = await partnerFixture();
    const response = await fx.app.inject({
      method: 'POST',
      url: '/partner/workspaces',
      headers: withToken(foreign(claims(), fx.other.partner_secret)) as Record<string, string>,
      payload: { nonsense: true },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ rule: 'invalid_credentials' });
  });
});
