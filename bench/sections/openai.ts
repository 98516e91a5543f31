/**
 * The measurements of the /v1 bench (docs/benchmarks.md, "OpenAI-compatible /v1"): non-streamed chat
 * throughput and CPU per request, time to first token of streamed chat, and open streams' memory.
 */
import { request, Agent } from 'node:http';
import { load, type LoadResult } from '../support/load.js';
import { cpuMicros, percentile, rssMb } from '../support/process-stats.js';

export interface Target {
  readonly name: string;
  /** The chat completions URL of this server. */
  readonly url: string;
  /** The model name this server routes to the fake upstream. */
  readonly model: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The server's own process(es), whose CPU time is counted. */
  readonly pids: readonly number[];
}

export interface Throughput extends LoadResult {
  readonly cpuMicrosPerRequest: number;
}

const chatBody = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'bench one two three four five six seven' }], max_tokens: 16, ...extra });

const cpuOf = (pids: readonly number[]) => pids.reduce((sum, pid) => sum + cpuMicros(pid), 0);

/** Non-streamed chat as fast as `connections` keep-alive connections go, with the server's CPU per request. */
export async function chatThroughput(t: Target, connections: number, seconds: number): Promise<Throughput> {
  const before = cpuOf(t.pids);
  const r = await load({ url: t.url, method: 'POST', body: chatBody(t.model), connections, durationSeconds: seconds, headerSets: [{ 'content-type': 'application/json', ...t.headers }] });
  return { ...r, cpuMicrosPerRequest: (cpuOf(t.pids) - before) / Math.max(1, r.requests) };
}

/**
 * One streamed chat: ms from sending the request to the first chunk that carries content (the first
 * token), then read to the end. Rejects on a non-200 answer.
 */
function firstToken(t: Target, agent: Agent, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let ttft = NaN;
    let text = '';
    const req = request(t.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...t.headers } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`${t.name}: HTTP ${String(res.statusCode)}`));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (Number.isNaN(ttft)) {
          text += chunk.toString();
          if (/"content":"[^"]/.test(text)) ttft = performance.now() - t0;
        }
      });
      res.on('end', () => (Number.isNaN(ttft) ? reject(new Error(`${t.name}: no token in ${text.slice(0, 300)}`)) : resolve(ttft)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Time to first token of `total` streamed chats, `concurrency` at a time (each stream read to its end). */
export async function streamedFirstToken(t: Target, concurrency: number, total: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const body = chatBody(t.model, { stream: true });
  const samples: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) samples.push(await firstToken(t, agent, body));
    }),
  );
  agent.destroy();
  return samples;
}

export interface OpenStreams {
  readonly streams: number;
  readonly rssIdleMb: number;
  readonly rssOpenMb: number;
  readonly openSeconds: number;
}

/**
 * `count` streamed chats held open at once (the fake upstream sends the role chunk and the first word of a
 * `bench-stall` prompt, then nothing more): resolves once every stream has delivered its first token, with
 * the server's resident memory then; every stream is then closed by the client.
 */
export async function openStreams(t: Target, pid: number, count: number): Promise<OpenStreams> {
  const rssIdleMb = rssMb(pid);
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  const body = chatBody(t.model, { stream: true, messages: [{ role: 'user', content: 'bench-stall hold this stream open' }] });
  const requests: ReturnType<typeof request>[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<void>((resolve, reject) => {
          const req = request(t.url, { method: 'POST', agent, headers: { 'content-type': 'application/json', ...t.headers } }, (res) => {
            if (res.statusCode !== 200) return reject(new Error(`${t.name}: HTTP ${String(res.statusCode)} for an open stream`));
            let text = '';
            const onData = (chunk: Buffer) => {
              text += chunk.toString();
              if (/"content":"[^"]/.test(text)) {
                res.off('data', onData);
                res.resume();
                resolve();
              }
            };
            res.on('data', onData);
            res.on('error', () => undefined);
          });
          req.on('error', (e) => reject(e));
          requests.push(req);
          req.end(body);
        }),
    ),
  );
  const openSeconds = (performance.now() - t0) / 1000;
  const rssOpenMb = rssMb(pid);
  for (const r of requests) r.destroy();
  agent.destroy();
  return { streams: count, rssIdleMb, rssOpenMb, openSeconds };
}

export { percentile };
