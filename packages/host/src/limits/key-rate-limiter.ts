import type { ApiKeyLimits, KeyRateLimiter, RateLimitDecision, RateLimitState, RateLimitWindow } from '@gengate/core';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

const WINDOWS: readonly { window: RateLimitWindow; seconds: number; limit: (l: ApiKeyLimits) => number | null }[] = [
  { window: 'minute', seconds: 60, limit: (l) => l.perMinute },
  { window: 'hour', seconds: 3_600, limit: (l) => l.perHour },
  { window: 'day', seconds: 86_400, limit: (l) => l.perDay },
];

/** Above every per-key limit the schema allows (1e9): the counter itself never refuses. */
const COUNTER_POINTS = 2 ** 31 - 1;

/**
 * Per-key limits on rate-limiter-flexible. One counter per window (three in all, whatever limits the
 * keys carry): it counts every request of a key in the window, and the key's own limit is compared with
 * that count here. So the number of limiter objects is bounded, and a key whose limit changes keeps its
 * count. `make` builds the store-specific counter (PostgreSQL or memory); the key prefixes are the ones
 * the previous one-limiter-per-limit design used, so stored counts carry over.
 */
export class FlexibleKeyRateLimiter implements KeyRateLimiter {
  private readonly counters = new Map<RateLimitWindow, RateLimiterAbstract>();

  constructor(private readonly make: (opts: { keyPrefix: string; points: number; duration: number }) => RateLimiterAbstract) {}

  private counter(window: RateLimitWindow, duration: number): RateLimiterAbstract {
    let c = this.counters.get(window);
    if (!c) {
      c = this.make({ keyPrefix: `gg-${window}`, points: COUNTER_POINTS, duration });
      this.counters.set(window, c);
    }
    return c;
  }

  async consume(apiKeyId: string, limits: ApiKeyLimits): Promise<RateLimitDecision> {
    let tightest: RateLimitState | null = null;
    for (const w of WINDOWS) {
      const limit = w.limit(limits);
      if (limit === null) continue;
      let res: RateLimiterRes;
      try {
        res = await this.counter(w.window, w.seconds).consume(apiKeyId);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        res = rejection; // the counter itself is exhausted (2^31 requests in one window)
      }
      const resetSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      if (res.consumedPoints > limit) {
        return { allowed: false, retryAfterSeconds: resetSeconds, state: { window: w.window, limit, remaining: 0, resetSeconds } };
      }
      const state = { window: w.window, limit, remaining: limit - res.consumedPoints, resetSeconds: Math.ceil(res.msBeforeNext / 1000) };
      if (!tightest || state.remaining < tightest.remaining) tightest = state;
    }
    return { allowed: true, state: tightest };
  }
}
