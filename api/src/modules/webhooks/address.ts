import { isIPv4, isIPv6 } from 'node:net';

/*
 * Which IP addresses a production webhook may be sent to. Pure (no DNS, no I/O) so it can be tested as a table.
 * Anything that is not plainly a public unicast address is refused: a merchant's webhook must never let someone
 * make bpay's servers call into their own network (SSRF: metadata services, admin ports, neighbours).
 */
export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'invalid';

type Octets = [number, number, number, number];

function ipv4Octets(s: string): Octets | null {
  const parts = s.split('.');
  if (parts.length !== 4) return null;
  const n = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : Number.NaN));
  if (n.some((x) => !(x >= 0 && x <= 255))) return null;
  return n as Octets;
}

function classifyIpv4([a, b, c]: Octets): AddressClass {
  if (a === 0) return 'unspecified'; // 0.0.0.0/8, "this network"
  if (a === 127) return 'loopback';
  if (a === 10) return 'private';
  if (a === 172 && b >= 16 && b <= 31) return 'private';
  if (a === 192 && b === 168) return 'private';
  if (a === 169 && b === 254) return 'link_local'; // also cloud metadata services (169.254.169.254)
  if (a === 100 && b >= 64 && b <= 127) return 'cgnat';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved'; // 240/4 and the broadcast address
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return 'reserved'; // IETF assignments, TEST-NET-1
  if (a === 198 && (b === 18 || b === 19)) return 'reserved'; // benchmarking
  if (a === 198 && b === 51 && c === 100) return 'reserved'; // TEST-NET-2
  if (a === 203 && b === 0 && c === 113) return 'reserved'; // TEST-NET-3
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail and a zone id allowed), or null. */
function ipv6Groups(input: string): number[] | null {
  let s = input;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!isIPv6(s)) return null;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const o = ipv4Octets(tail);
    if (!o) return null;
    s = `${s.slice(0, lastColon + 1)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parse = (h: string) => (h === '' ? [] : h.split(':').map((x) => Number.parseInt(x, 16)));
  const head = parse(halves[0]!);
  if (halves.length === 1) return head.length === 8 ? head : null;
  const rest = parse(halves[1]!);
  const zeros = 8 - head.length - rest.length;
  if (zeros < 1) return null;
  return [...head, ...Array<number>(zeros).fill(0), ...rest];
}

const embeddedV4 = (hi: number, lo: number): Octets => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

function classifyIpv6(g: number[]): AddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const firstFiveZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 0) return 'unspecified';
  if (firstFiveZero && g5 === 0 && g6 === 0 && g7 === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) reaches the IPv4 address itself.
  if (firstFiveZero && g5 === 0xffff) return classifyIpv4(embeddedV4(g6, g7));
  // IPv4-compatible (::a.b.c.d), deprecated.
  if (firstFiveZero && g5 === 0) return 'reserved';
  // NAT64 (64:ff9b::/96) and 6to4 (2002::/16) carry an IPv4 address that a gateway may reach.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyIpv4(embeddedV4(g6, g7));
  if (g0 === 0x2002) return classifyIpv4(embeddedV4(g1, g2));
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, the old site-local
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local'; // fc00::/7
  if ((g0 & 0xff00) === 0xff00) return 'multicast'; // ff00::/8
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // documentation
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo: the real address is hidden
  if ((g0 & 0xe000) !== 0x2000) return 'reserved'; // global unicast is 2000::/3 only
  return 'public';
}

/** Classifies an IP address literal (IPv4 dotted quad or IPv6, brackets allowed). Anything else is 'invalid'. */
export function classifyAddress(address: string): AddressClass {
  const s = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(s)) {
    const o = ipv4Octets(s);
    return o ? classifyIpv4(o) : 'invalid';
  }
  const g = ipv6Groups(s);
  return g ? classifyIpv6(g) : 'invalid';
}

export const isPublicAddress = (address: string): boolean => classifyAddress(address) === 'public';

/** Whether a URL host is an IP literal rather than a name (URL keeps IPv6 literals in brackets). */
export function isIpLiteral(host: string): boolean {
  const s = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIPv4(s) || isIPv6(s);
}
