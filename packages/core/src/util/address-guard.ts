import { BlockList, isIP } from 'node:net';

/** Loopback, private, link-local (cloud metadata), shared, reserved and multicast ranges. */
const FORBIDDEN = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32], ['100::', 64],
] as const) {
  FORBIDDEN.addSubnet(net, prefix, 'ipv6');
}

/** True when the gateway must not connect to this IP address (it is not a public address). Non-IPs are refused too. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped?.[1]) return FORBIDDEN.check(mapped[1], 'ipv4');
  const version = isIP(bare);
  if (version === 0) return true;
  return FORBIDDEN.check(bare, version === 4 ? 'ipv4' : 'ipv6');
}

/**
 * What can be told from a URL alone, without DNS: a literal private or loopback IP, or `localhost`.
 * (A name that resolves to a private address is refused when connecting: see the host's guarded fetch.)
 */
export function isPrivateUrlLiteral(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return true;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const bare = host.replace(/^\[|\]$/g, '');
  return isIP(bare) !== 0 && isForbiddenAddress(bare);
}
