import { describe, expect, it } from 'vitest';
import { addLatencyHistograms, emptyLatencyHistogram, LATENCY_BUCKET_BOUNDS_MS, LATENCY_BUCKETS, latencyBucketOf, latencyPercentile } from './latency-histogram.js';

describe('latency histogram', () => {
  it('has 47 buckets whose bounds rise by at most √2 (whole ms), from 1 ms to 2^23 ms', () => {
    expect(LATENCY_BUCKETS).toBe(47);
    expect(LATENCY_BUCKET_BOUNDS_MS[0]).toBe(1);
    expect(LATENCY_BUCKET_BOUNDS_MS.at(-1)).toBe(2 ** 23);
    for (let i = 1; i < LATENCY_BUCKET_BOUNDS_MS.length; i += 1) {
      const [lo, hi] = [LATENCY_BUCKET_BOUNDS_MS[i - 1] ?? 0, LATENCY_BUCKET_BOUNDS_MS[i] ?? 0];
      expect(hi).toBeGreaterThan(lo);
      expect(hi - 1).toBeLessThanOrEqual(Math.ceil(lo * Math.SQRT2));
    }
  });

  it('puts a latency in the bucket whose bounds hold it', () => {
    expect(latencyBucketOf(0)).toBe(0);
    expect(latencyBucketOf(1)).toBe(1);
    expect(latencyBucketOf(2)).toBe(2);
    expect(latencyBucketOf(1023)).toBe(latencyBucketOf(725));
    expect(latencyBucketOf(1024)).toBe(latencyBucketOf(1448));
    expect(latencyBucketOf(10 ** 9)).toBe(46);
    for (const ms of [1, 5, 99, 1000, 4096, 70_000, 3_600_000]) {
      const b = latencyBucketOf(ms);
      expect(LATENCY_BUCKET_BOUNDS_MS[b - 1]).toBeLessThanOrEqual(ms);
      expect(LATENCY_BUCKET_BOUNDS_MS[b] ?? Infinity).toBeGreaterThan(ms);
    }
  });

  it('answers percentiles within 2^(1/4) of the exact nearest-rank value, null when empty', () => {
    expect(latencyPercentile(emptyLatencyHistogram(), 50)).toBeNull();
    // 1..10,000 ms, one each: nearest rank p50 = 5,000, p95 = 9,500.
    const h = emptyLatencyHistogram();
    for (let ms = 1; ms <= 10_000; ms += 1) h[latencyBucketOf(ms)] = (h[latencyBucketOf(ms)] ?? 0) + 1;
    for (const [p, exact] of [[50, 5_000], [95, 9_500], [99, 9_900]] as const) {
      const answer = latencyPercentile(h, p) ?? 0;
      expect(answer / exact).toBeLessThanOrEqual(2 ** 0.25);
      expect(exact / answer).toBeLessThanOrEqual(2 ** 0.25);
    }
    // Below 4 ms each bucket holds one value: exact.
    const small = emptyLatencyHistogram();
    small[latencyBucketOf(3)] = 1;
    expect(latencyPercentile(small, 50)).toBe(3);
  });

  it('merges by adding counts, so the percentile of a merge is the percentile of the union', () => {
    const a = emptyLatencyHistogram();
    const b = emptyLatencyHistogram();
    a[latencyBucketOf(100)] = 9;
    b[latencyBucketOf(5_000)] = 1;
    const merged = addLatencyHistograms(emptyLatencyHistogram(), a);
    addLatencyHistograms(merged, b);
    expect(merged.reduce((n, c) => n + c, 0)).toBe(10);
    expect(latencyPercentile(merged, 50)).toBe(latencyPercentile(a, 50));
    expect(latencyPercentile(merged, 95)).toBe(latencyPercentile(b, 95));
  });
});
