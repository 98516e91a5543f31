import autocannon from 'autocannon';

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

export interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly durationSeconds?: number;
  readonly amount?: number;
  /** Total requests per second across connections (a fixed-rate load), else as fast as possible. */
  readonly overallRate?: number;
  readonly method?: 'GET' | 'POST';
  readonly body?: string;
  /** One header set per request, rotated (e.g. 50 users' keys). */
  readonly headerSets: readonly Record<string, string>[];
}

/** Drives HTTP load with autocannon (one process, pipelining 1) and summarizes it. */
export async function load(o: LoadOptions): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url: o.url,
    connections: o.connections,
    pipelining: 1,
    ...(o.amount ? { amount: o.amount } : { duration: o.durationSeconds ?? 5 }),
    ...(o.overallRate ? { overallRate: o.overallRate } : {}),
    method: o.method ?? 'GET',
    ...(o.body ? { body: o.body } : {}),
    requests: [
      {
        setupRequest: (req) => {
          const headers = o.headerSets[n++ % o.headerSets.length] ?? {};
          return { ...req, headers: { ...req.headers, ...headers } };
        },
      },
    ],
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
