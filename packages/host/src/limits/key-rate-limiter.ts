import type { ApiKeyLimits, KeyRateLimiter, RateLimitDecision, RateLimitState, RateLimitWindow } from '@gengate/core';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

const WINDOWS: readonly { window: RateLimitWindow; seconds: number; limit: (l: ApiKeyLimits) => number | null }[] = [
  { window: 'minute', seconds: 60, limit: (l) => l.perMinute },
  { window: 'hour', seconds: 3_600, limit: (l) => l.perHour },
  { window: 'day', seconds: 86_400, limit: (l) => l.perDay },
];

/**
 * Per-key limits on rate-limiter-flexible. Limits differ per key, so there is one limiter per
 * (window, points) pair; all of a window's limiters share one key prefix, so they count the same
 * requests. `make` builds the store-specific limiter (PostgreSQL or memory).
 */
export class FlexibleKeyRateLimiter implements KeyRateLimiter {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(private readonly make: (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract) {}

  private limiter(window: RateLimitWindow, points: number, duration: number): RateLimiterAbstract {
    const id = `${window}:${points}`;
    let l = this.limiters.get(id);
    if (!l) {
      l = this.make({ keyPrefix: `gg-${window}`, points, duration });
      this.limiters.set(id, l);
    }
    return l;
  }

  async consume(apiKeyId: string, limits: ApiKeyLimits): Promise<RateLimitDecision> {
    let tightest: RateLimitState | null = null;
    for (const w of WINDOWS) {
      const points = w.limit(limits);
      if (points === null) continue;
      try {
        const res = await this.limiter(w.window, points, w.seconds).consume(apiKeyId);
        const state = { window: w.window, limit: points, remaining: res.remainingPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
        if (!tightest || state.remaining < tightest.remaining) tightest = state;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
        return { allowed: false, retryAfterSeconds, state: { window: w.window, limit: points, remaining: 0, resetSeconds: retryAfterSeconds } };
      }
    }
    return { allowed: true, state: tightest };
  }
}
