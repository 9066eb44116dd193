import { describe, expect, test } from 'bun:test';
import { classifyAddress, isIpLiteral, isPublicAddress, type AddressClass } from './address';

/* Which addresses a production webhook may reach: only public unicast ones. */

const TABLE: Array<[string, AddressClass]> = [
  // IPv4
  ['93.184.216.34', 'public'],
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.1', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.1', 'public'],
  ['169.253.1.1', 'public'],
  ['223.255.255.255', 'public'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.1.2.3', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['169.254.169.254', 'link_local'],
  ['169.254.0.1', 'link_local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.7', 'reserved'],
  // IPv6
  ['2606:4700:4700::1111', 'public'],
  ['2001:4860:4860::8888', 'public'],
  ['[2606:4700:4700::1111]', 'public'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['[::1]', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf::1', 'link_local'],
  ['fec0::1', 'private'],
  ['fc00::1', 'unique_local'],
  ['fd12:3456:789a::1', 'unique_local'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['2001:0:4136:e378::1', 'reserved'],
  ['100::1', 'reserved'],
  ['::1.2.3.4', 'reserved'],
  // IPv4-mapped, NAT64 and 6to4 addresses are what they carry.
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['[::ffff:7f00:1]', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'link_local'],
  ['::ffff:100.64.0.1', 'cgnat'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::ffff:93.184.216.34', 'public'],
  ['64:ff9b::a9fe:a9fe', 'link_local'],
  ['64:ff9b::8.8.8.8', 'public'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:c0a8:101::1', 'private'],
  ['2002:5db8:d822::1', 'public'],
  // Not addresses at all.
  ['localhost', 'invalid'],
  ['example.com', 'invalid'],
  ['1.2.3', 'invalid'],
  ['1.2.3.256', 'invalid'],
  ['01.2.3.4', 'invalid'],
  ['', 'invalid'],
  ['::g', 'invalid'],
];

describe('classifyAddress', () => {
  test.each(TABLE)('%s is %s', (address, expected) => {
    expect(classifyAddress(address)).toBe(expected);
    expect(isPublicAddress(address)).toBe(expected === 'public');
  });
});

describe('isIpLiteral', () => {
  test.each([
    ['127.0.0.1', true],
    ['[::1]', true],
    ['::1', true],
    ['hooks.example.com', false],
    ['localhost', false],
  ] as const)('%s -> %p', (host, expected) => {
    expect(isIpLiteral(host)).toBe(expected);
  });
});
