import jwt from 'jsonwebtoken';
import { afterEach, describe, expect, it } from 'vitest';
import { partnerWebhookHeaders } from '../../src/partner/partner-jwt-sign.js';
import { partnerFixture } from '../support/partner-fixtures.js';

let fx: Awaited<ReturnType<typeof partnerFixture>>;
afterEach(async () => {
  await fx?.app.close();
  await fx?.engine.close();
});

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/** Every operation of the served Partner document, with its path parameters filled in. */
async function partnerOperations(): Promise<Array<{ method: Method; url: string }>> {
  const doc = (await fx.app.inject({ method: 'GET', url: '/partner/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
  const operations: Array<{ method: Method; url: string }> = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue;
      operations.push({ method: method.toUpperCase() as Method, url: `/partner${path.replace(/\{[^}]+\}/g, '1')}` });
    }
  }
  return operations;
}

describe('partner credentials cannot be confused', () => {
  it('a webhook delivery X-SVC-Signature gets 401 on every Partner route', async () => {
    fx = await partnerFixture();
    const delivery = partnerWebhookHeaders(fx.partner.partner_id, fx.partner.partner_secret, fx.clock, '{"event":"x"}');
    const operations = await partnerOperations();
    expect(operations.length).toBeGreaterThan(8);
    for (const { method, url } of operations) {
      const response = await fx.app.inject({
        method, url, payload: method === 'GET' || method === 'DELETE' ? undefined : {},
        headers: { authorization: `Bearer ${delivery['X-SVC-Signature']}`, 'x-svc-partner-id': delivery['X-SVC-Partner-Id'] },
      });
      expect({ method, url, status: response.statusCode }).toEqual({ method, url, status: 401 });
      expect(response.json()).toMatchObject({ rule: 'webhook_signature_not_accepted' });
    }
    // The same partner's own API token still works, so the refusal is about the token's kind.
    expect((await fx.call('GET', '/me')).status).toBe(200);
  });

  it('an unknown Partner ID and a bad signature get byte-identical 401 bodies', async () => {
    fx = await partnerFixture();
    const nowSec = Math.floor(fx.clock.now() / 1000);
    const claims = (partnerId: string) => ({ partner_id: partnerId, iat: nowSec, nbf: nowSec, exp: nowSec + 300 });
    const unknown = await fx.app.inject({
      method: 'GET', url: '/partner/me',
      headers: { authorization: `Bearer ${jwt.sign(claims('ptn_nobody000'), 'whatever')}`, 'x-svc-partner-id': 'ptn_nobody000' },
    });
    const badSignature = await fx.app.inject({
      method: 'GET', url: '/partner/me',
      headers: { authorization: `Bearer ${jwt.sign(claims(fx.partner.partner_id), 'wrong-secret')}`, 'x-svc-partner-id': fx.partner.partner_id },
    });
    expect(unknown.statusCode).toBe(401);
    expect(badSignature.statusCode).toBe(401);
    expect(unknown.body).toBe(badSignature.body);
    expect(unknown.body).not.toContain('ptn_nobody000');
  });

  it('a token with iat in the future and no nbf cannot outlive the allowed lifetime from now', async () => {
    fx = await partnerFixture();
    const nowSec = Math.floor(fx.clock.now() / 1000);
    const token = jwt.sign({ partner_id: fx.partner.partner_id, iat: nowSec + 86_400, exp: nowSec + 86_400 + 600 }, fx.partner.partner_secret, { noTimestamp: true });
    const response = await fx.app.inject({
      method: 'GET', url: '/partner/me',
      headers: { authorization: `Bearer ${token}`, 'x-svc-partner-id': fx.partner.partner_id },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ rule: 'lifetime_too_long' });
  });
});
