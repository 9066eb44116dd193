/**
 * The key an address is limited by. An IPv4 address is itself (an IPv4-mapped IPv6 address is its IPv4 address); an
 * IPv6 address is its /64 network, because one subscriber is routed a whole /64 and can pick any address in it.
 */
export function addressKey(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  if (mapped) return mapped[1]!;
  if (!a.includes(':')) return a;
  const [head = '', tail] = a.split('%')[0]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (…:1.2.3.4) is two groups; only the first four groups matter here.
  const groups = tail === undefined ? left : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => (g.replace(/^0+(?=.)/, '') || '0'))
    .join(':')}::/64`;
}
