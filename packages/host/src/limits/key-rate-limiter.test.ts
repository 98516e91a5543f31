import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { FlexibleKeyRateLimiter } from './key-rate-limiter.js';

const none = { perMinute: null, perHour: null, perDay: null };

describe('FlexibleKeyRateLimiter', () => {
  it('keeps a bounded number of limiters however many different limits the keys carry', async () => {
    let made = 0;
    const limiter = new FlexibleKeyRateLimiter((opts) => {
      made++;
      return new RateLimiterMemory(opts);
    });
    for (let points = 1; points <= 2_000; points++) {
      await limiter.consume(`key-${points}`, { perMinute: points, perHour: points * 10, perDay: null });
    }
    expect(made).toBeLessThanOrEqual(3);
  });

  it('enforces each key’s own limit and reports the tightest window', async () => {
    const limiter = new FlexibleKeyRateLimiter((opts) => new RateLimiterMemory(opts));
    const limits = { ...none, perMinute: 3, perHour: 100 };
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('k1', limits));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions[0]?.state).toMatchObject({ window: 'minute', limit: 3, remaining: 2 });
    expect(decisions[2]?.state).toMatchObject({ window: 'minute', limit: 3, remaining: 0 });
    const refused = decisions[3];
    expect(refused?.allowed === false && refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(refused?.state).toMatchObject({ window: 'minute', limit: 3, remaining: 0 });
    // Another key with a larger limit is counted on its own.
    expect((await limiter.consume('k2', { ...none, perMinute: 5 })).state).toMatchObject({ limit: 5, remaining: 4 });
    // A key whose limit is raised keeps its count (the count does not depend on the limit).
    expect((await limiter.consume('k1', { ...none, perMinute: 10 })).state).toMatchObject({ limit: 10, remaining: 5 });
    expect(await limiter.consume('k3', none)).toEqual({ allowed: true, state: null });
  });
});
