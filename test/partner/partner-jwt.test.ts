import { generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createHash, createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { SvcError } from '../../src/wire/errors.js';
import { generatePartnerCredentials, looksLikePartnerId } from '../../src/partner/partner-credentials.js';
import { partnerWebhookHeaders } from '../../src/partner/partner-jwt-sign.js';
import { signPartnerJwt, verifyPartnerRequest, type PartnerAuthRule } from '../../src/partner/partner-jwt.js';

const PARTNER = 'ptn_acme0001';
const SECRET = 'pts_' + 'k'.repeat(43);
const clock = new FakeClock();
const nowSec = () => Math.floor(clock.now() / 1000);

const START = clock.now();
beforeEach(() => clock.set(START));

/**
 * Signs with jsonwebtoken, a different library from the one the server verifies with. Its `noTimestamp`
 * would drop a given iat, and its own iat comes from the real clock, so it is used only when iat is absent.
 */
const foreignSign = (claims: Record<string, unknown>, secret = SECRET, algorithm: jwt.Algorithm = 'HS256') =>
  jwt.sign(claims, secret, { algorithm, noTimestamp: !('iat' in claims) });

/** An HS256 token built by hand, for claims no JWT library would sign. */
const handSign = (claims: Record<string, unknown>): string => {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
};

const validClaims = () => ({ partner_id: PARTNER, iat: nowSec(), nbf: nowSec(), exp: nowSec() + 300 });

const verify = (token: string | undefined, ...header: [string | undefined] | []) =>
  verifyPartnerRequest({
    authorization: token === undefined ? undefined : `Bearer ${token}`,
    partnerIdHeader: header.length === 0 ? PARTNER : header[0],
    lookupSecret: (id) => (id === PARTNER ? SECRET : null),
    clock,
  });

async function expectRefused(promise: Promise<unknown>, rule: PartnerAuthRule): Promise<SvcError> {
  const error = await promise.then(
    () => expect.fail(`expected refusal by rule ${rule}`),
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SvcError);
  const svcError = error as SvcError;
  expect(svcError.code).toBe('unauthorized');
  expect(svcError.status).toBe(401);
  expect(svcError.details).toEqual({ rule });
  expect(svcError.message).toContain(`(${rule})`);
  return svcError;
}

describe('verifyPartnerRequest: acceptance', () => {
  it('verifyPartnerRequest: accepts an HS256 token signed by jsonwebtoken', async () => {
    await expect(verify(foreignSign(validClaims()))).resolves.toBe(PARTNER);
  });

  it('verifyPartnerRequest: accepts a jsonwebtoken token with only partner_id and exp', async () => {
    await expect(verify(foreignSign({ partner_id: PARTNER, exp: nowSec() + 900 }))).resolves.toBe(PARTNER);
  });

  it('verifyPartnerRequest: accepts a token from signPartnerJwt, and jsonwebtoken verifies it too', async () => {
    const token = signPartnerJwt(PARTNER, SECRET, clock);
    await expect(verify(token)).resolves.toBe(PARTNER);
    const decoded = jwt.verify(token, SECRET, { algorithms: ['HS256'], clockTimestamp: nowSec() });
    expect(decoded).toMatchObject({ partner_id: PARTNER, nbf: nowSec(), exp: nowSec() + 300 });
  });

  it('verifyPartnerRequest: tolerates 60 s of clock skew on exp and nbf', async () => {
    const expiredJustNow = foreignSign({ partner_id: PARTNER, nbf: nowSec() - 300, exp: nowSec() - 59 });
    const startsSoon = foreignSign({ partner_id: PARTNER, nbf: nowSec() + 59, exp: nowSec() + 359 });
    await expect(verify(expiredJustNow)).resolves.toBe(PARTNER);
    await expect(verify(startsSoon)).resolves.toBe(PARTNER);
  });

  it('verifyPartnerRequest: accepts exactly 15 minutes of lifetime', async () => {
    await expect(verify(foreignSign({ partner_id: PARTNER, nbf: nowSec(), exp: nowSec() + 900 }))).resolves.toBe(PARTNER);
  });
});

describe('verifyPartnerRequest: one refusal per rule', () => {
  it('verifyPartnerRequest: refuses alg none', async () => {
    const token = jwt.sign(validClaims(), '', { algorithm: 'none', noTimestamp: true });
    const error = await expectRefused(verify(token), 'algorithm_not_allowed');
    expect(error.message).toContain('"none"');
  });

  it('verifyPartnerRequest: refuses HS512 even with the right secret', async () => {
    const error = await expectRefused(verify(foreignSign(validClaims(), SECRET, 'HS512')), 'algorithm_not_allowed');
    expect(error.message).toContain('"HS512"');
  });

  it('verifyPartnerRequest: refuses RS256', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const token = jwt.sign(validClaims(), privateKey, { algorithm: 'RS256', noTimestamp: true });
    await expectRefused(verify(token), 'algorithm_not_allowed');
  });

  it('verifyPartnerRequest: refuses a token signed with another secret', async () => {
    await expectRefused(verify(foreignSign(validClaims(), 'pts_not-the-secret')), 'invalid_credentials');
  });

  it('verifyPartnerRequest: refuses a token whose payload was altered after signing', async () => {
    const [header, , signature] = foreignSign(validClaims()).split('.');
    const forged = Buffer.from(JSON.stringify({ ...validClaims(), exp: nowSec() + 600 })).toString('base64url');
    await expectRefused(verify(`${header}.${forged}.${signature}`), 'invalid_credentials');
  });

  it('verifyPartnerRequest: refuses an expired token (beyond the skew)', async () => {
    const token = foreignSign({ partner_id: PARTNER, nbf: nowSec() - 400, exp: nowSec() - 61 });
    await expectRefused(verify(token), 'expired');
  });

  it('verifyPartnerRequest: refuses a token that has expired on the fake clock', async () => {
    const token = signPartnerJwt(PARTNER, SECRET, clock, 60);
    clock.advance(121_000);
    await expectRefused(verify(token), 'expired');
  });

  it('verifyPartnerRequest: refuses a token that is not yet valid', async () => {
    const token = foreignSign({ partner_id: PARTNER, nbf: nowSec() + 61, exp: nowSec() + 361 });
    await expectRefused(verify(token), 'not_yet_valid');
  });

  it('verifyPartnerRequest: refuses a lifetime over 15 minutes from nbf', async () => {
    const token = foreignSign({ partner_id: PARTNER, nbf: nowSec(), exp: nowSec() + 901 });
    const error = await expectRefused(verify(token), 'lifetime_too_long');
    expect(error.message).toContain('after nbf');
  });

  it('verifyPartnerRequest: refuses a lifetime over 15 minutes from iat', async () => {
    const token = foreignSign({ partner_id: PARTNER, iat: nowSec() - 600, exp: nowSec() + 600 });
    const error = await expectRefused(verify(token), 'lifetime_too_long');
    expect(error.message).toContain('after iat');
  });

  it('verifyPartnerRequest: refuses an exp more than 15 minutes (plus skew) ahead when nbf and iat are absent', async () => {
    const token = foreignSign({ partner_id: PARTNER, exp: nowSec() + 961 });
    const error = await expectRefused(verify(token), 'lifetime_too_long');
    expect(error.message).toContain('after now');
  });

  it('verifyPartnerRequest: refuses a token without exp', async () => {
    await expectRefused(verify(foreignSign({ partner_id: PARTNER, iat: nowSec() })), 'exp_required');
  });

  it('verifyPartnerRequest: refuses a token without the partner_id claim', async () => {
    await expectRefused(verify(foreignSign({ exp: nowSec() + 300 })), 'partner_id_claim_missing');
  });

  it('verifyPartnerRequest: refuses a partner_id claim that differs from the header', async () => {
    const token = foreignSign({ ...validClaims(), partner_id: 'ptn_someoneelse' });
    await expectRefused(verify(token), 'partner_id_mismatch');
  });

  it('verifyPartnerRequest: refuses a request without X-SVC-Partner-Id', async () => {
    await expectRefused(verify(foreignSign(validClaims()), undefined), 'missing_partner_id_header');
    await expectRefused(verify(foreignSign(validClaims()), '  '), 'missing_partner_id_header');
  });

  it('verifyPartnerRequest: refuses an unknown partner', async () => {
    const token = foreignSign({ ...validClaims(), partner_id: 'ptn_nobody000' });
    await expectRefused(verify(token, 'ptn_nobody000'), 'invalid_credentials');
  });

  it('verifyPartnerRequest: refuses a malformed token', async () => {
    await expectRefused(verify('not-a-jwt'), 'malformed_token');
    await expectRefused(verify('a.b.c'), 'malformed_token');
  });

  it('verifyPartnerRequest: refuses a non-numeric exp as malformed', async () => {
    await expectRefused(verify(handSign({ partner_id: PARTNER, exp: 'tomorrow' })), 'malformed_token');
  });

  it('verifyPartnerRequest: refuses a missing or non-Bearer Authorization header', async () => {
    await expectRefused(verify(undefined), 'missing_authorization');
    const basic = verifyPartnerRequest({
      authorization: 'Basic dXNlcjpwYXNz',
      partnerIdHeader: PARTNER,
      lookupSecret: () => SECRET,
      clock,
    });
    await expectRefused(basic, 'missing_authorization');
  });
});

describe('signPartnerJwt and credentials', () => {
  it('signPartnerJwt: refuses a lifetime the server would refuse', () => {
    expect(() => signPartnerJwt(PARTNER, SECRET, clock, 901)).toThrow(RangeError);
    expect(() => signPartnerJwt(PARTNER, SECRET, clock, 0)).toThrow(RangeError);
  });

  it('signPartnerJwt: carries extra claims without letting them replace the standard ones', () => {
    const token = signPartnerJwt(PARTNER, SECRET, clock, 300, { body_sha256: 'abc', partner_id: 'x', exp: 1 });
    expect(jwt.decode(token)).toMatchObject({ body_sha256: 'abc', partner_id: PARTNER, exp: nowSec() + 300 });
  });

  it('partnerWebhookHeaders: a receiver verifies it with the Partner Secret, bound to the body; the API refuses it', async () => {
    const body = JSON.stringify({ event: 'messenger_account:connected', phone: '+15550001' });
    const headers = partnerWebhookHeaders(PARTNER, SECRET, clock, body);
    expect(headers['X-SVC-Partner-Id']).toBe(PARTNER);
    const claims = jwt.verify(headers['X-SVC-Signature'], SECRET, { algorithms: ['HS256'], clockTimestamp: nowSec() });
    expect(claims).toMatchObject({ partner_id: PARTNER, aud: 'svc:partner-webhook', body_sha256: createHash('sha256').update(body).digest('hex') });
    await expectRefused(verify(headers['X-SVC-Signature'], headers['X-SVC-Partner-Id']), 'webhook_signature_not_accepted');
  });

  it('generatePartnerCredentials: distinct, prefixed, high-entropy values', () => {
    const a = generatePartnerCredentials();
    const b = generatePartnerCredentials();
    expect(a.partner_id).not.toBe(b.partner_id);
    expect(a.partner_secret).not.toBe(b.partner_secret);
    expect(looksLikePartnerId(a.partner_id)).toBe(true);
    expect(a.partner_secret).toMatch(/^pts_[A-Za-z0-9_-]{43}$/);
  });
});
