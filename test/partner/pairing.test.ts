import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/wire/clock.js';
import { SvcError } from '../../src/wire/errors.js';
import {
  PAIRING_WINDOW_MS,
  codeFromQrLink,
  generateLinkCode,
  linksRevokedBy,
  nextPairingRotationAt,
  pairingLookupKey,
  pairingPayload,
  qrLinkExpiresAt,
  qrLinkState,
  qrLinkUrl,
  resolvePairingPayload,
} from '../../src/partner/pairing.js';

const HOUR = 3_600_000;

describe('pairing: link codes and expiry', () => {
  it('generateLinkCode: URL-safe, 32 characters, never repeats', () => {
    const codes = new Set(Array.from({ length: 1000 }, generateLinkCode));
    expect(codes.size).toBe(1000);
    for (const code of codes) expect(code).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('qrLinkExpiresAt: defaults to 24 hours and accepts 1..168', () => {
    const now = 1_000_000;
    expect(qrLinkExpiresAt(now, undefined)).toBe(now + 24 * HOUR);
    expect(qrLinkExpiresAt(now, 1)).toBe(now + HOUR);
    expect(qrLinkExpiresAt(now, 168)).toBe(now + 168 * HOUR);
  });

  it.each([0, 169, -1, 1.5, '24', true])('qrLinkExpiresAt: refuses %j with validation_error', (value) => {
    expect(() => qrLinkExpiresAt(0, value)).toThrow(SvcError);
    try {
      qrLinkExpiresAt(0, value);
    } catch (error) {
      expect((error as SvcError).code).toBe('validation_error');
      expect((error as SvcError).message).toContain('expires_in_hours');
    }
  });

  it('qrLinkState: waiting, then expired at expires_at; connected and revoked take precedence', () => {
    const link = { expires_at: 10_000, revoked_at: null, connected_account_id: null };
    expect(qrLinkState(link, 9_999)).toBe('waiting');
    expect(qrLinkState(link, 10_000)).toBe('expired');
    expect(qrLinkState({ ...link, connected_account_id: 7 }, 50_000)).toBe('connected');
    expect(qrLinkState({ ...link, connected_account_id: 7, revoked_at: 5_000 }, 6_000)).toBe('revoked');
  });

  it('linksRevokedBy: a new link revokes the previous live links of the same user only', () => {
    const existing = [
      { id: 1, workspace_id: 1, user_id: 10, revoked_at: 5 },
      { id: 2, workspace_id: 1, user_id: 10, revoked_at: null },
      { id: 3, workspace_id: 1, user_id: 11, revoked_at: null },
      { id: 4, workspace_id: 2, user_id: 10, revoked_at: null },
    ];
    const newLink = { id: 5, workspace_id: 1, user_id: 10, revoked_at: null };
    expect(linksRevokedBy(newLink, [...existing, newLink]).map((link) => link.id)).toEqual([2]);
  });
});

describe('pairing: rotating payloads', () => {
  const code = generateLinkCode();
  const lookup = (key: string) => (key === pairingLookupKey(code) ? code : null);

  it('pairingPayload: changes every 20 s and never contains the code', () => {
    const clock = new FakeClock(PAIRING_WINDOW_MS * 1000);
    const first = pairingPayload(code, clock.now());
    clock.advance(PAIRING_WINDOW_MS - 1);
    expect(pairingPayload(code, clock.now())).toBe(first);
    clock.advance(1);
    expect(pairingPayload(code, clock.now())).not.toBe(first);
    expect(first).not.toContain(code);
    expect(nextPairingRotationAt(PAIRING_WINDOW_MS * 1000 + 5)).toBe(PAIRING_WINDOW_MS * 1001);
  });

  it('resolvePairingPayload: maps the current and the previous window back to the code', async () => {
    const clock = new FakeClock(PAIRING_WINDOW_MS * 5000 + 3);
    const payload = pairingPayload(code, clock.now());
    expect(await resolvePairingPayload(payload, clock.now(), lookup)).toBe(code);
    clock.advance(PAIRING_WINDOW_MS);
    expect(await resolvePairingPayload(payload, clock.now(), lookup)).toBe(code);
    clock.advance(PAIRING_WINDOW_MS);
    expect(await resolvePairingPayload(payload, clock.now(), lookup)).toBeNull();
  });

  it('resolvePairingPayload: refuses a payload from the future, a forged MAC, another link and junk', async () => {
    const now = PAIRING_WINDOW_MS * 7000;
    const future = pairingPayload(code, now + PAIRING_WINDOW_MS);
    expect(await resolvePairingPayload(future, now, lookup)).toBeNull();

    const parts = pairingPayload(code, now).split('.');
    const forged = [...parts.slice(0, 3), Buffer.alloc(16).toString('base64url')].join('.');
    expect(await resolvePairingPayload(forged, now, lookup)).toBeNull();

    const other = generateLinkCode();
    expect(await resolvePairingPayload(pairingPayload(other, now), now, lookup)).toBeNull();
    // A stored key that maps to a different code must still fail the MAC.
    expect(await resolvePairingPayload(pairingPayload(other, now), now, () => code)).toBeNull();
    expect(await resolvePairingPayload('https://example.com', now, lookup)).toBeNull();
  });
});

describe('pairing: links', () => {
  it('qrLinkUrl and codeFromQrLink: round trip, with embedding and a path prefix', () => {
    const code = generateLinkCode();
    const plain = qrLinkUrl('http://127.0.0.1:8080', code);
    expect(plain).toBe(`http://127.0.0.1:8080/connect/${code}`);
    const embedded = qrLinkUrl('https://svc.example.com/base/', code, true);
    expect(embedded).toBe(`https://svc.example.com/base/connect/${code}?display_mode=embedding`);
    expect(codeFromQrLink(plain)).toBe(code);
    expect(codeFromQrLink(embedded)).toBe(code);
    expect(codeFromQrLink('not a url')).toBeNull();
    expect(codeFromQrLink('http://x/other/abc')).toBeNull();
  });
});
