import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The one address guard: which targets the gateway may connect to when a URL comes from outside (callback
 * URLs, upstream result URLs, users' reference inputs). Only ordinary public unicast addresses pass.
 *
 * The ranges are ipaddr.js's classification of the IANA special-purpose registries (loopback, private,
 * link-local and so the cloud metadata address, carrier-grade NAT, unique-local, multicast, documentation,
 * benchmarking, reserved, and the IPv6 ranges that carry an IPv4 address inside: NAT64, 6to4, Teredo).
 * IPv4-mapped IPv6 (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is judged as the IPv4 address it maps to, and the
 * deprecated IPv4-compatible form (`::127.0.0.1`) is refused outright.
 */

/** `::a.b.c.d` (RFC 4291's deprecated IPv4-compatible addresses), which ipaddr.js counts as unicast. */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

/** True when the gateway must not connect to this IP address (it is not a public address). Non-IPs are refused too. */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIP(bare) === 0) return true; // node's strict reading: `1.2.3` or `0x7f.1` are not IP addresses here
  const ip = ipaddr.process(bare); // an IPv4-mapped IPv6 address becomes the IPv4 address it maps to
  if (ip instanceof ipaddr.IPv6 && ip.match(IPV4_COMPATIBLE)) return true;
  return ip.range() !== 'unicast';
}

/**
 * What can be told from a host name alone, without DNS: a literal IP that is not public, or `localhost`.
 * Other names are decided when connecting, by guardedLookup.
 */
export function isForbiddenHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && isForbiddenAddress(host);
}

/**
 * What can be told from a URL alone, without DNS: a literal private or loopback IP, or `localhost`; an
 * unparseable URL too. (A name that resolves to a private address is refused when connecting: guardedLookup.)
 */
export function isPrivateUrlLiteral(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return true;
  }
  return isForbiddenHost(host);
}

/** Raised by guardedLookup when a name resolves only to addresses the gateway must not connect to. */
export class ForbiddenAddressError extends Error {
  override readonly name = 'ForbiddenAddressError';
}

/** A DNS resolver answering every address of a name (node:dns's lookup with `all: true`); replaceable in tests. */
export type ResolveAll = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: ResolveAll = (hostname, options, callback) => dnsLookup(hostname, options, callback);

/**
 * A DNS lookup for a socket (node:http's and undici's `lookup` option) that drops the addresses the gateway
 * must not connect to, and fails with ForbiddenAddressError when none is left. It is the lookup the socket
 * connects with, so the address checked is the address connected to, even when DNS answers differently
 * between two lookups (DNS rebinding). `allowPrivate` (development only) lets every address through.
 */
export function guardedLookup(allowPrivate: boolean, resolve: ResolveAll = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => !isForbiddenAddress(a.address));
      if (allowed.length === 0) {
        return callback(new ForbiddenAddressError(`${hostname} resolves only to private or reserved addresses`), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      const first = allowed[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}
