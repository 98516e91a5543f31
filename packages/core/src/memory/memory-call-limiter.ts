import type { CallPermit, ProviderCallLimiter, ProviderLimits } from '../ports/call-limiter.js';

/** Per-provider call limits in this process only (tests, single-process embedding). */
export class MemoryCallLimiter implements ProviderCallLimiter {
  private readonly inFlight = new Map<string, number>();
  private readonly recent = new Map<string, number[]>();

  constructor(
    private readonly limits: (providerId: string) => ProviderLimits,
    private readonly now: () => number = Date.now,
  ) {}

  async acquire(providerId: string): Promise<CallPermit> {
    const { maxConcurrent, maxPerMinute } = this.limits(providerId);
    const running = this.inFlight.get(providerId) ?? 0;
    if (maxConcurrent !== null && running >= maxConcurrent) return { acquired: false, retryAfterMs: 250 };
    const t = this.now();
    const window = (this.recent.get(providerId) ?? []).filter((at) => at > t - 60_000);
    if (maxPerMinute !== null && window.length >= maxPerMinute) {
      return { acquired: false, retryAfterMs: Math.max(1, (window[0] ?? t) + 60_000 - t) };
    }
    window.push(t);
    this.recent.set(providerId, window);
    this.inFlight.set(providerId, running + 1);
    let released = false;
    return {
      acquired: true,
      release: async () => {
        if (released) return;
        released = true;
        this.inFlight.set(providerId, (this.inFlight.get(providerId) ?? 1) - 1);
      },
    };
  }
}
