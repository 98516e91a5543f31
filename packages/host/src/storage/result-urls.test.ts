import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createResultUrlResolver, createResultUrlVerifier, expiryStepSeconds } from './result-urls.js';

const expiresOf = (url: string): number => Number(new URL(url).searchParams.get('expires'));

describe('signed result URLs', () => {
  it('rounds the expiry up to a sixtieth of the lifetime (1 s to 60 s)', () => {
    expect(expiryStepSeconds(3_600)).toBe(60);
    expect(expiryStepSeconds(600)).toBe(10);
    expect(expiryStepSeconds(59)).toBe(1);
    expect(expiryStepSeconds(1)).toBe(1);
    expect(expiryStepSeconds(31_536_000)).toBe(60);
  });

  it('hands out one URL per file within a step, which verifies, and lives between the TTL and the TTL plus the step', () => {
    let now = Date.parse('2026-11-27T10:00:07.250Z');
    const signing = { secret: randomBytes(32), ttlSeconds: 3_600, now: () => now };
    const urls = createResultUrlResolver(() => 'https://gg.example', signing);
    const verifier = createResultUrlVerifier(signing);
    const first = urls.urlFor('task-a/output-0.png');
    const nowSeconds = Math.floor(now / 1000);
    expect(expiresOf(first) % 60).toBe(0);
    expect(expiresOf(first) - nowSeconds).toBeGreaterThanOrEqual(3_600);
    expect(expiresOf(first) - nowSeconds).toBeLessThan(3_660);
    expect(verifier.verify('task-a/output-0.png', Object.fromEntries(new URL(first).searchParams))).toEqual({ ok: true, expiresAt: expiresOf(first) });

    // Later in the same step: the very same URL; another file: its own.
    now += 30_000;
    expect(urls.urlFor('task-a/output-0.png')).toBe(first);
    const other = urls.urlFor('task-b/output-0.png');
    expect(other).not.toBe(first);
    expect(verifier.verify('task-a/output-0.png', Object.fromEntries(new URL(other).searchParams))).toEqual({ ok: false, reason: 'invalid' });

    // The next step: a later expiry, a fresh signature, and the old URL still verifies until it expires.
    now += 60_000;
    const next = urls.urlFor('task-a/output-0.png');
    expect(expiresOf(next)).toBe(expiresOf(first) + 60);
    expect(verifier.verify('task-a/output-0.png', Object.fromEntries(new URL(next).searchParams)).ok).toBe(true);
    now = expiresOf(first) * 1000;
    expect(verifier.verify('task-a/output-0.png', Object.fromEntries(new URL(first).searchParams))).toEqual({ ok: false, reason: 'expired' });
  });

  it('follows a change of the public URL, and stays right past the number of URLs it keeps', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    let base = 'http://127.0.0.1:0';
    const signing = { secret: randomBytes(32), ttlSeconds: 600, now: () => now };
    const urls = createResultUrlResolver(() => base, signing, '/ai');
    const verifier = createResultUrlVerifier(signing);
    expect(urls.urlFor('t/output-0.mp4').startsWith('http://127.0.0.1:0/ai/files/t/output-0.mp4?expires=')).toBe(true);
    base = 'https://gg.example';
    expect(urls.urlFor('t/output-0.mp4').startsWith('https://gg.example/ai/files/t/output-0.mp4?expires=')).toBe(true);
    for (let i = 0; i < 5_000; i++) {
      const key = `t${i}/output-0.png`;
      const url = new URL(urls.urlFor(key));
      expect(url.pathname).toBe(`/ai/files/${key}`);
      if (i % 997 === 0) expect(verifier.verify(key, Object.fromEntries(url.searchParams)).ok).toBe(true);
    }
    expect(urls.urlFor('t4999/output-0.png')).toBe(urls.urlFor('t4999/output-0.png'));
  });
});
