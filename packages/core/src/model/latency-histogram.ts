/**
 * The latency histogram of the usage rollups: fixed, log-spaced buckets (ratio √2) over whole milliseconds,
 * kept as an integer array so rollups of any grain merge by adding element by element and p50/p95 come from
 * the merged counts. The bounds are also written, as literals, into migration 023's trigger (a host test checks
 * that they match): changing them means a new migration and a rebuild of the rollups.
 *
 * Bucket 0 holds latencies below 1 ms; bucket i (1..46) holds LATENCY_BUCKET_BOUNDS_MS[i-1] <= ms <
 * LATENCY_BUCKET_BOUNDS_MS[i] (the last one, from 8,388,608 ms = 2 h 20 min, is open). The bounds are
 * ceil(2^(k/2)) ms, so neighbouring bounds differ by a factor of at most √2 (plus rounding to whole ms
 * below 8 ms). A percentile is answered as the geometric middle of its bucket, so it is within a factor
 * 2^(1/4) of the true value: at most +19% / -16% (exact below 4 ms).
 */
export const LATENCY_BUCKET_BOUNDS_MS: readonly number[] = [1, ...Array.from({ length: 45 }, (_, k) => Math.ceil(2 ** ((k + 2) / 2)))];

/** Number of buckets: one below the first bound, one from each bound on. */
export const LATENCY_BUCKETS = LATENCY_BUCKET_BOUNDS_MS.length + 1;

/** The bucket of a latency in whole milliseconds (PostgreSQL: `width_bucket(ms, bounds)`, same answer). */
export function latencyBucketOf(ms: number): number {
  let n = 0;
  for (const bound of LATENCY_BUCKET_BOUNDS_MS) {
    if (ms < bound) break;
    n += 1;
  }
  return n;
}

/** An empty histogram. */
export function emptyLatencyHistogram(): number[] {
  return Array.from({ length: LATENCY_BUCKETS }, () => 0);
}

/** `into` plus `add`, element by element (into is changed and returned). */
export function addLatencyHistograms(into: number[], add: readonly number[]): number[] {
  for (let i = 0; i < LATENCY_BUCKETS; i += 1) into[i] = (into[i] ?? 0) + (add[i] ?? 0);
  return into;
}

/** The value a bucket stands for: 0 below 1 ms, the geometric middle of a closed bucket, the bound of the open one. */
function representative(bucket: number): number {
  const lower = LATENCY_BUCKET_BOUNDS_MS[bucket - 1];
  const upper = LATENCY_BUCKET_BOUNDS_MS[bucket];
  if (lower === undefined) return 0;
  if (upper === undefined) return lower;
  // Below 4 ms a bucket holds one whole millisecond value: exact.
  if (upper - lower <= 1) return lower;
  return Math.round(Math.sqrt(lower * upper));
}

/**
 * The `percent`-th percentile (nearest rank: the smallest value with at least ceil(percent × n / 100) of
 * the n values at or below it), in milliseconds, or null for an empty histogram.
 */
export function latencyPercentile(histogram: readonly number[], percent: number): number | null {
  const total = histogram.reduce((n, c) => n + c, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil((percent * total) / 100));
  let seen = 0;
  for (let i = 0; i < histogram.length; i += 1) {
    seen += histogram[i] ?? 0;
    if (seen >= rank) return representative(i);
  }
  return representative(histogram.length - 1);
}
