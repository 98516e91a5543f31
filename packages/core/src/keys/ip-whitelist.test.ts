import { describe, expect, it } from 'vitest';
import { compileWhitelist, parseIpEntry } from './ip-whitelist.js';
import { generateApiKeySecret, hashApiKeySecret, looksLikeApiKey, maskApiKeySecret } from './api-key-secret.js';

describe('IP whitelist', () => {
  it('validates entries', () => {
    for (const ok of ['203.0.113.7', '10.0.0.0/8', '2001:db8::1', '2001:db8::/32', '::1']) expect(parseIpEntry(ok)).not.toBeNull();
    for (const bad of ['300.1.1.1', '10.0.0.0/33', '2001:db8::/129', 'example.com', '1.2.3.4/', '1.2.3.4/8/9', '', '1.2.3.4/-1']) {
      expect(parseIpEntry(bad)).toBeNull();
    }
  });

  it('matches exact addresses and ranges of both families, including IPv4-mapped IPv6', () => {
    const allow = compileWhitelist(['203.0.113.7', '10.1.0.0/16', '2001:db8::1', 'fd00::/8']);
    expect(allow('203.0.113.7')).toBe(true);
    expect(allow('203.0.113.8')).toBe(false);
    expect(allow('10.1.200.3')).toBe(true);
    expect(allow('10.2.0.1')).toBe(false);
    expect(allow('::ffff:10.1.0.9')).toBe(true);
    expect(allow('2001:db8::1')).toBe(true);
    expect(allow('2001:db8::2')).toBe(false);
    expect(allow('fd12:3456::1')).toBe(true);
    expect(allow('not-an-ip')).toBe(false);
    expect(compileWhitelist([])('198.51.100.1')).toBe(true);
  });
});

describe('API key secrets', () => {
  it('are prefixed, high-entropy, hashed and masked', () => {
    const a = generateApiKeySecret();
    const b = generateApiKeySecret();
    expect(a).not.toBe(b);
    expect(looksLikeApiKey(a)).toBe(true);
    expect(a.length).toBe(8 + 43);
    expect(hashApiKeySecret(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKeySecret(a)).not.toContain(a.slice(8));
    expect(maskApiKeySecret(a)).toBe(`gg_live_...${a.slice(-4)}`);
  });
});
