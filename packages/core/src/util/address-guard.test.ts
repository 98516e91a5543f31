import type { LookupAddress } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { ForbiddenAddressError, guardedLookup, isForbiddenAddress, isForbiddenHost, isPrivateUrlLiteral, type ResolveAll } from './address-guard.js';

describe('isForbiddenAddress', () => {
  it('refuses loopback, private, link-local (metadata), shared, reserved and multicast IPv4', () => {
    for (const a of [
      '127.0.0.1', '127.255.0.9', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '0.0.0.0',
      '100.64.0.1', '192.0.0.170', '192.0.2.1', '198.18.0.1', '198.51.100.7', '203.0.113.9', '224.0.0.1', '240.0.0.1', '255.255.255.255',
    ]) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
  });

  it('lets public IPv4 through', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.255.0.1', '93.184.216.34']) expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('refuses loopback, unique-local, link-local, multicast, documentation and NAT64 IPv6', () => {
    for (const a of ['::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', 'ff02::1', '2001:db8::1', '64:ff9b::7f00:1', '100::1', '[::1]']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
  });

  it('refuses IPv6 forms that carry an IPv4 address inside (6to4, Teredo, IPv4-compatible) and site-local', () => {
    for (const a of ['2002:7f00:1::', '2002:a9fe:a9fe::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '::127.0.0.1', '::a9fe:a9fe', 'fec0::1']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
  });

  it('lets public IPv6 through', () => {
    for (const a of ['2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e']) expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('judges IPv4-mapped IPv6 as the IPv4 address it maps to, in dotted and in hex form', () => {
    for (const a of ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '::ffff:a9fe:a9fe', '::FFFF:10.0.0.1', '[::ffff:192.168.0.1]']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['::ffff:8.8.8.8', '::ffff:808:808']) expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('refuses what is not an IP address', () => {
    for (const a of ['', 'localhost', 'example.com', '256.1.1.1', '1.2.3', '::ffff:999.0.0.1']) expect(isForbiddenAddress(a), a).toBe(true);
  });
});

describe('isForbiddenHost and isPrivateUrlLiteral (no DNS)', () => {
  it('refuses literal private IPs and localhost, leaves other names to the lookup', () => {
    for (const h of ['127.0.0.1', '[::1]', 'LOCALHOST', 'api.localhost', '[::ffff:7f00:1]', '169.254.169.254']) expect(isForbiddenHost(h), h).toBe(true);
    for (const h of ['example.com', '8.8.8.8', '[2606:4700:4700::1111]', 'metadata.google.internal']) expect(isForbiddenHost(h), h).toBe(false);
  });

  it('reads the host out of a URL as WHATWG URL normalizes it (mapped IPv6 turns to hex, decimal IPv4 to dotted)', () => {
    for (const u of [
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:169.254.169.254]/latest',
      'http://2130706433/', // 127.0.0.1 written as one number
      'http://0x7f.1/',
      'http://localhost:9/x',
      'http://[fd00::1]/',
      'not a url',
    ]) {
      expect(isPrivateUrlLiteral(u), u).toBe(true);
    }
    for (const u of ['https://example.com/a.png', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]/x']) expect(isPrivateUrlLiteral(u), u).toBe(false);
  });
});

/** A resolver that answers from a table, as DNS would (`all: true`). */
function fakeDns(table: Record<string, string[]>): ResolveAll {
  return (hostname, _options, callback) => {
    const answers = table[hostname];
    if (!answers) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, answers.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
}

type Outcome = { err: Error | null; address?: string | LookupAddress[]; family?: number };

function lookupOnce(lookup: ReturnType<typeof guardedLookup>, hostname: string, all = false): Promise<Outcome> {
  return new Promise((resolve) => {
    lookup(hostname, { all }, (err, address, family) => resolve({ err, address, family }));
  });
}

describe('guardedLookup (the lookup a socket connects with)', () => {
  const dns = fakeDns({
    'rebind.example': ['127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:10.0.0.1'],
    'v6-private.example': ['fd00::5', 'fe80::1'],
    'mixed.example': ['10.0.0.7', '93.184.216.34', '::1', '2606:4700:4700::1111'],
    'public.example': ['93.184.216.34'],
  });

  it('refuses a name that resolves only to private addresses, whatever their form', async () => {
    for (const name of ['rebind.example', 'metadata.example', 'mapped.example', 'v6-private.example']) {
      const { err } = await lookupOnce(guardedLookup(false, dns), name);
      expect(err, name).toBeInstanceOf(ForbiddenAddressError);
      expect(err?.message).toBe(`${name} resolves only to private or reserved addresses`);
    }
  });

  it('connects to the public addresses of a name that resolves to both, never to the private ones', async () => {
    expect(await lookupOnce(guardedLookup(false, dns), 'mixed.example')).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    const all = await lookupOnce(guardedLookup(false, dns), 'mixed.example', true);
    expect(all.err).toBeNull();
    expect(all.address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:4700:4700::1111', family: 6 },
    ]);
  });

  it('lets a public name through, and every address when private targets are allowed (development)', async () => {
    expect(await lookupOnce(guardedLookup(false, dns), 'public.example')).toEqual({ err: null, address: '93.184.216.34', family: 4 });
    expect(await lookupOnce(guardedLookup(true, dns), 'rebind.example')).toEqual({ err: null, address: '127.0.0.1', family: 4 });
  });

  it('passes DNS errors through unchanged', async () => {
    const { err } = await lookupOnce(guardedLookup(false, dns), 'nowhere.example');
    expect(err).not.toBeInstanceOf(ForbiddenAddressError);
    expect((err as NodeJS.ErrnoException).code).toBe('ENOTFOUND');
  });

  it('refuses localhost through the system resolver', async () => {
    const { err } = await lookupOnce(guardedLookup(false), 'localhost');
    expect(err).toBeInstanceOf(ForbiddenAddressError);
  });
});
