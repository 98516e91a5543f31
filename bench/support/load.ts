import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';

export interface LoadResult {
  readonly requests: number;
  readonly rps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** An open-loop load's result, with the generator's own event-loop delay while it ran (its pauses time responses late). */
export interface OpenLoadResult extends LoadResult {
  readonly generatorDelayP99Ms: number;
  readonly generatorDelayMaxMs: number;
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

/**
 * An open-loop load: request i is sent at t0 + i / rate whatever the answers, so the rate is an arrival
 * rate and a slow answer does not hold the next request back. autocannon's `overallRate` is a closed loop
 * per connection whose per-second budgets refill at once: it sends each second's requests in a burst at
 * the connections' full speed, so its p99 "at 1,000 req/s" is the p99 of bursts (docs/benchmarks.md).
 * The requests go through node:http with a keep-alive agent (from 2026-11-27; before, fetch): fetch's
 * Request, Headers and stream objects cost the load generator, which shares the machine's two cores with
 * what it measures, several times the CPU per request, and its latencies carried that.
 * The loop runs in a worker thread (open-load-worker.mjs, from 2026-11-27 17:30 UTC): its own isolate and
 * heap, so the bench's garbage collections (its heap grows with the run's earlier loads) do not pause it;
 * the result carries the generator's own event-loop delay, which times every answer read during it late.
 */
export async function openLoad(o: Omit<LoadOptions, 'connections' | 'overallRate' | 'amount'> & { readonly rate: number; readonly durationSeconds: number }): Promise<OpenLoadResult> {
  const worker = new Worker(new URL('./open-load-worker.mjs', import.meta.url), {
    workerData: { url: o.url, rate: o.rate, durationSeconds: o.durationSeconds, method: o.method, body: o.body, headerSets: o.headerSets },
    // Its own small isolate: no loader, no flags of the bench's (tsx's hooks are not needed by plain JavaScript).
    execArgv: [],
  });
  try {
    const [result] = (await once(worker, 'message')) as [OpenLoadResult];
    return result;
  } finally {
    await worker.terminate();
  }
}
