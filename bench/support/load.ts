import { Agent, request } from 'node:http';
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

/**
 * An open-loop load: request i is sent at t0 + i / rate whatever the answers, so the rate is an arrival
 * rate and a slow answer does not hold the next request back. autocannon's `overallRate` is a closed loop
 * per connection whose per-second budgets refill at once: it sends each second's requests in a burst at
 * the connections' full speed, so its p99 "at 1,000 req/s" is the p99 of bursts (docs/benchmarks.md).
 * The requests go through node:http with a keep-alive agent (from 2026-11-27; before, fetch): fetch's
 * Request, Headers and stream objects cost the load generator, which shares the machine's two cores with
 * what it measures, several times the CPU per request, and its latencies carried that.
 */
export async function openLoad(o: Omit<LoadOptions, 'connections' | 'overallRate' | 'amount'> & { readonly rate: number; readonly durationSeconds: number }): Promise<LoadResult> {
  const total = Math.round(o.rate * o.durationSeconds);
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  const inflight: Promise<void>[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 1_024 });
  const target = new URL(o.url);
  const t0 = performance.now();
  const send = (i: number): Promise<void> =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = request(target, { method: o.method ?? 'GET', headers: o.headerSets[i % o.headerSets.length] ?? {}, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) non2xx++;
          latencies.push(performance.now() - started);
          resolve();
        });
        res.on('error', () => {
          errors++;
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(o.body);
    });
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) / 1000) * o.rate) + 1);
    while (sent < due) inflight.push(send(sent++));
    await new Promise((r) => setTimeout(r, Math.max(0, (sent / o.rate) * 1000 - (performance.now() - t0))));
  }
  await Promise.all(inflight);
  agent.destroy();
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { requests: total, rps: latencies.length / seconds, p50Ms: at(50), p99Ms: at(99), non2xx, errors };
}
