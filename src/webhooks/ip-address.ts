import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a webhook may reach on `svc serve`. The rule is an allow-list for IPv6 (only global
 * unicast 2000::/3) and a deny-list for IPv4, both following the IANA special-purpose registries; an
 * IPv6 address that embeds an IPv4 one (mapped, NAT64, 6to4) is judged by the IPv4 address inside it,
 * because that is where the packets end up.
 */

/** [network, prefix length] pairs of IPv4 space that is not publicly routable. */
const IPV4_NON_PUBLIC: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, includes cloud metadata endpoints (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast 255.255.255.255
];

const IPV4_RANGES = IPV4_NON_PUBLIC.map(([network, bits]) => {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (ipv4ToNumber(network)! & mask) >>> 0, mask };
});

/** True when `ip` (IPv4 or IPv6 text, brackets and zone id allowed) is a public, routable address. */
export function isPublicAddress(ip: string): boolean {
  const address = stripDecorations(ip);
  if (isIPv4(address)) return isPublicIPv4(ipv4ToNumber(address)!);
  if (isIPv6(address)) {
    const groups = parseIPv6(address);
    return groups !== null && isPublicIPv6(groups);
  }
  return false;
}

/** Strips `[...]` and a `%zone` suffix, which may appear in URLs and link-local addresses. */
export function stripDecorations(ip: string): string {
  let address = ip.trim();
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  return zone === -1 ? address : address.slice(0, zone);
}

function isPublicIPv4(value: number): boolean {
  return !IPV4_RANGES.some(({ base, mask }) => ((value & mask) >>> 0) === base);
}

function isPublicIPv6(g: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const embedded = ((g6 << 16) | g7) >>> 0;
  const first80Zero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  // ::ffff:a.b.c.d (IPv4-mapped): the kernel connects to the IPv4 address itself.
  if (first80Zero && g5 === 0xffff) return isPublicIPv4(embedded);
  // 64:ff9b::/96 (NAT64 well-known prefix): the translator forwards to the embedded IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPublicIPv4(embedded);
  // 2002::/16 (6to4): the relay forwards to the IPv4 address in bits 16..47.
  if (g0 === 0x2002) return isPublicIPv4(((g1 << 16) | g2) >>> 0);
  // Everything outside global unicast 2000::/3 is not public: ::, ::1, IPv4-compatible ::/96,
  // ::ffff:0:0:0/96, 64:ff9b:1::/48, 100::/64, fc00::/7, fe80::/10, fec0::/10, ff00::/8 ...
  if ((g0 & 0xe000) !== 0x2000) return false;
  if (g0 === 0x2001 && g1 < 0x0200) return false; // 2001::/23 IETF protocol assignments, incl. Teredo
  if (g0 === 0x2001 && g1 === 0x0db8) return false; // documentation
  if ((g0 & 0xfff0) === 0x3ff0) return false; // 3fff::/20 documentation
  return true;
}

function ipv4ToNumber(address: string): number | null {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255)) return null;
  return parts.reduce((acc, part) => acc * 256 + part, 0);
}

/** Parses IPv6 text (already validated by `isIPv6`) into its eight 16-bit groups. */
export function parseIPv6(address: string): number[] | null {
  let text = address.toLowerCase();
  // A dotted IPv4 tail (::ffff:127.0.0.1) stands for the last two groups; rewrite it as hex.
  const lastColon = text.lastIndexOf(':');
  const maybeV4 = text.slice(lastColon + 1);
  if (maybeV4.includes('.')) {
    const v4 = ipv4ToNumber(maybeV4);
    if (v4 === null) return null;
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string | undefined): number[] =>
    part === undefined || part === '' ? [] : part.split(':').map((h) => Number.parseInt(h, 16));
  const head = parse(halves[0]);
  const rest = parse(halves[1]);
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...head, ...new Array<number>(halves.length === 1 ? 0 : missing).fill(0), ...rest];
  return groups.length === 8 && groups.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? groups : null;
}
