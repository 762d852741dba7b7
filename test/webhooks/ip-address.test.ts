import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, parseIPv6 } from '../../src/webhooks/ip-address.js';

/** An IPv4 address inside `network/bits`, generated from the host part. */
const inV4Range = (network: string, bits: number) =>
  fc.integer({ min: 0, max: 2 ** (32 - bits) - 1 }).map((host) => {
    const base = network.split('.').reduce((acc, p) => acc * 256 + Number(p), 0);
    const value = base + host;
    return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
  });

const v4Private: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const anyPrivateV4 = fc.oneof(...v4Private.map(([n, b]) => inV4Range(n, b)));
const hex = (n: number) => n.toString(16);
const group = fc.integer({ min: 0, max: 0xffff });

/** An IPv6 address whose first group is fixed by `first` (masked to a prefix) and the rest random. */
const v6With = (first: fc.Arbitrary<number>) =>
  fc.tuple(first, fc.array(group, { minLength: 7, maxLength: 7 })).map(([g0, rest]) => [g0, ...rest].map(hex).join(':'));

describe('isPublicAddress', () => {
  it('isPublicAddress: public IPv4 and IPv6 addresses are public', () => {
    for (const ip of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450:4001:81b::200e', '[2001:4860:4860::8888]', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      expect(isPublicAddress(ip), ip).toBe(true);
    }
  });

  it('isPublicAddress: named non-public IPv4 addresses', () => {
    for (const ip of ['0.0.0.0', '127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.255', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.5', '198.18.0.1']) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
  });

  it('isPublicAddress: named non-public IPv6 addresses, including embedded IPv4', () => {
    for (const ip of ['::', '::1', '[::1]', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'fec0::1', 'ff02::1', 'ff05::2', '::ffff:127.0.0.1', '::ffff:7f00:1', '::FFFF:7F00:0001', '0:0:0:0:0:ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '64:ff9b::10.0.0.1', '64:ff9b:1::1', '2002:7f00:1::', '2002:c0a8:101::1', '2001::1', '2001:db8::1', '100::1', '3fff::1', '5f00::1']) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
  });

  it('isPublicAddress: anything that is not an IP address is not public', () => {
    for (const text of ['', 'localhost', 'example.com', '127.1', '0x7f000001', '2130706433', '1.2.3', '1.2.3.4.5', '::ffff:1.2.3', 'gggg::1']) {
      expect(isPublicAddress(text), text).toBe(false);
    }
  });

  it('isPublicAddress: property: every address in a private IPv4 range is refused, plain or IPv4-mapped', () => {
    fc.assert(
      fc.property(anyPrivateV4, (ip) => {
        const [a = 0, b = 0, c = 0, d = 0] = ip.split('.').map(Number);
        const mappedHex = `::ffff:${hex(a * 256 + b)}:${hex(c * 256 + d)}`;
        return !isPublicAddress(ip) && !isPublicAddress(`::ffff:${ip}`) && !isPublicAddress(mappedHex) && !isPublicAddress(`64:ff9b::${ip}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('isPublicAddress: property: ULA, link-local, multicast and non-2000::/3 IPv6 are refused', () => {
    const ula = v6With(fc.integer({ min: 0xfc00, max: 0xfdff }));
    const linkLocal = v6With(fc.integer({ min: 0xfe80, max: 0xfebf }));
    const multicast = v6With(fc.integer({ min: 0xff00, max: 0xffff }));
    const outsideGlobal = v6With(fc.integer({ min: 0x4000, max: 0xffff }).filter((g) => g !== 0x64));
    fc.assert(fc.property(fc.oneof(ula, linkLocal, multicast, outsideGlobal), (ip) => !isPublicAddress(ip)), { numRuns: 2000 });
  });

  it('isPublicAddress: property: the same address is judged the same in every IPv6 spelling', () => {
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (groups) => {
        const full = groups.map(hex).join(':');
        const padded = groups.map((g) => hex(g).padStart(4, '0')).join(':').toUpperCase();
        expect(parseIPv6(full)).toEqual(groups);
        return isPublicAddress(full) === isPublicAddress(padded);
      }),
      { numRuns: 1000 },
    );
  });

  it('parseIPv6: expands :: and dotted IPv4 tails', () => {
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('fe80::')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});
