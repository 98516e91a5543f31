/**
 * npm run bench:openai — the OpenAI-compatible surface (/v1) beside a bare Node proxy and Portkey's gateway
 * 1.15.2, in one run, against the same zero-latency fake OpenAI upstream (docs/benchmarks.md explains every
 * figure). gengate runs as `npm start` runs it (compiled, its own process, PostgreSQL: embedded unless
 * DATABASE_URL is set), the OpenAI provider configured against the fake, each call a durable task with its
 * ledger entries; the Anthropic provider configured against a fake Anthropic upstream for the Messages rows.
 * `--quick` shortens every load. Writes bench/results/<date>-<commit>-openai.json.
 */
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { createKeys, startHost } from './sections/gengate.js';
import { firstEventTimes, messagesPair, responsesPair, warmUp } from './sections/first-event.js';
import { chatThroughput, openStreams, percentile, streamedFirstToken, type Target, type Throughput } from './sections/openai.js';
import { PORTKEY_VERSION, startBareProxy, startFakeAnthropicUpstream, startFakeUpstream, startPortkey } from './sections/openai-servers.js';

const quick = process.argv.includes('--quick');
const SECONDS = quick ? 2 : 6;
const STREAMS = quick ? 200 : 1_000;
const STREAM_SAMPLES = quick ? 200 : 1_000;
const SERIAL_SAMPLES = quick ? 100 : 300;

const record: Record<string, unknown> = {};
const rows: string[] = [];
const f0 = (n: number) => Math.round(n).toLocaleString('en-US');
const f1 = (n: number) => n.toFixed(1);
const f2 = (n: number) => n.toFixed(2);
const met = (ok: boolean) => (ok ? 'met' : 'NOT met');

function add(key: string, line: string, data: unknown): void {
  rows.push(line);
  record[key] = data;
  process.stdout.write(`  ${line}\n`);
}

async function main(): Promise<void> {
  const commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
  const load0 = loadavg().map(f2).join(', ');
  process.stdout.write(`gengate /v1 bench ${commit} on ${cpus().length} cores, load average ${load0}, ${process.env['DATABASE_URL'] ? 'DATABASE_URL' : 'embedded PostgreSQL'}${quick ? ' (quick)' : ''}\n`);
  record['load_average_start'] = loadavg();
  const db = await scratchDatabase();
  const upstream = await startFakeUpstream();
  const anthropic = await startFakeAnthropicUpstream();
  const proxy = await startBareProxy(upstream.url);
  const portkey = await startPortkey();
  const host = await startHost({
    DATABASE_URL: db.url,
    RUN_WORKER: 'false',
    OPENAI_API_KEY: 'sk-bench-upstream-0123456789',
    OPENAI_BASE_URL: `${upstream.url}/v1`,
    ANTHROPIC_API_KEY: 'sk-ant-bench-upstream-0123456789',
    ANTHROPIC_BASE_URL: `${anthropic.url}/v1`,
    TASKS_RUNNING_PER_USER_CHAT: '10000',
    TASKS_QUEUED_PER_USER: '1000000',
  });
  try {
    const [key] = await createKeys(db.url, 1);
    const chat = '/v1/chat/completions';
    const targets: Target[] = [
      { name: 'upstream', url: `${upstream.url}${chat}`, model: 'gpt-4o-mini', headers: { authorization: 'Bearer sk-bench-upstream' }, pids: [upstream.pid] },
      { name: 'bare proxy', url: `${proxy.url}${chat}`, model: 'gpt-4o-mini', headers: {}, pids: [proxy.pid] },
      {
        name: `Portkey ${PORTKEY_VERSION}`,
        url: `${portkey.url}${chat}`,
        model: 'gpt-4o-mini',
        headers: { authorization: 'Bearer sk-bench-upstream', 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${upstream.url}/v1` },
        pids: [portkey.pid],
      },
      { name: 'gengate', url: `${host.url}${chat}`, model: 'openai.gpt-4o-mini', headers: { authorization: `Bearer ${key ?? ''}` }, pids: [host.pid] },
    ];
    // Every server answers once before it is measured (and the answers are checked to be completions).
    for (const t of targets) {
      const res = await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body: JSON.stringify({ model: t.model, messages: [{ role: 'user', content: 'warm up' }], max_tokens: 8 }) });
      const json = (await res.json()) as { object?: string };
      if (res.status !== 200 || json.object !== 'chat.completion') throw new Error(`${t.name} answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
    }
    const [, bare, pk, gg] = targets as [Target, Target, Target, Target];
    // The coding-agent dialects, each beside the upstream call gengate makes for it (answers checked the same way).
    const dialects = [messagesPair(anthropic.url, host.url, key ?? '', 'sk-ant-bench-upstream'), responsesPair(upstream.url, host.url, key ?? '', 'sk-bench-upstream')];
    for (const pair of dialects) await warmUp(pair);

    process.stdout.write(`non-streamed chat (${SECONDS} s per load; CPU = each server's own process)\n`);
    for (const connections of [10, 50]) {
      const r: Record<string, Throughput> = {};
      for (const t of [bare, pk, gg]) {
        const m = await chatThroughput(t, connections, SECONDS);
        r[t.name] = m;
        add(`chat_${connections}c_${t.name.split(' ')[0]?.toLowerCase() ?? t.name}`, `${t.name}, ${connections} connections: ${f0(m.rps)} req/s, p50 ${f1(m.p50Ms)} ms, p99 ${f1(m.p99Ms)} ms, ${f0(m.cpuMicrosPerRequest)} µs CPU/request (non-2xx ${m.non2xx}, errors ${m.errors})`, m);
      }
      const g = r['gengate'];
      const p = r[pk.name];
      const b = r['bare proxy'];
      if (g && p && b) {
        const rpsRatio = g.rps / p.rps;
        const cpuRatio = g.cpuMicrosPerRequest / p.cpuMicrosPerRequest;
        add(`goal_${connections}c`, `=> ${connections} connections: gengate ${f2(rpsRatio)}x Portkey's throughput (goal >= 1.5: ${met(rpsRatio >= 1.5)}), ${f2(cpuRatio)}x its CPU/request (goal <= 0.6: ${met(cpuRatio <= 0.6)}); bare proxy ${f0(b.rps)} req/s at ${f0(b.cpuMicrosPerRequest)} µs`, { rpsRatio, cpuRatio });
      }
    }

    process.stdout.write(`streamed chat, 50 concurrent streams, ${STREAM_SAMPLES} streams per server: time to first token\n`);
    const ttft: Record<string, number[]> = {};
    for (const t of targets) {
      const s = await streamedFirstToken(t, 50, STREAM_SAMPLES).catch((e: unknown) => {
        // Portkey 1.15.2 answers a passed-through OpenAI stream with HTTP 500 on Node ("TypeError: immutable"
        // in its updateHeaders: https://github.com/Portkey-AI/gateway/issues/1389 and #1550): recorded, not fatal.
        add(`ttft_${t.name.split(' ')[0]?.toLowerCase() ?? t.name}`, `${t.name}: streamed chat failed: ${(e as Error).message}`, { error: (e as Error).message });
        return null;
      });
      if (!s) continue;
      ttft[t.name] = s;
      add(`ttft_${t.name.split(' ')[0]?.toLowerCase() ?? t.name}`, `${t.name}: first token p50 ${f2(percentile(s, 50))} ms, p99 ${f2(percentile(s, 99))} ms (n=${s.length})`, { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length });
    }
    const up = ttft['upstream'] ?? [];
    for (const t of [bare, pk, gg]) {
      const s = ttft[t.name];
      if (!s) continue;
      const d50 = percentile(s, 50) - percentile(up, 50);
      const d99 = percentile(s, 99) - percentile(up, 99);
      const goal = t === gg ? ` (targets p50 <= 3 ms: ${met(d50 <= 3)}, p99 <= 15 ms: ${met(d99 <= 15)})` : '';
      add(`ttft_overhead_${t.name.split(' ')[0]?.toLowerCase() ?? t.name}`, `=> ${t.name} first-token overhead over the upstream's own: p50 +${f2(d50)} ms, p99 +${f2(d99)} ms${goal}`, { p50: d50, p99: d99 });
    }

    process.stdout.write(`streamed Messages and Responses, 50 concurrent streams, ${STREAM_SAMPLES} streams per server: time to the first event carrying text\n`);
    // 50 at a time as the chat rows; then one at a time (`serial_`), where no call waits for another: the per-call overhead alone.
    for (const [concurrency, samples, tag] of [[50, STREAM_SAMPLES, ''], [1, SERIAL_SAMPLES, 'serial_']] as const) {
      if (concurrency === 1) process.stdout.write(`the same, one stream at a time, ${SERIAL_SAMPLES} streams per server\n`);
      for (const { dialect, upstream: own, gengate } of dialects) {
        const u = await firstEventTimes(own, concurrency, samples);
        const g = await firstEventTimes(gengate, concurrency, samples);
        for (const [who, s] of [['upstream', u], ['gengate', g]] as const) {
          add(`ttfe_${tag}${dialect}_${who}`, `${dialect} ${who}: first text event p50 ${f2(percentile(s, 50))} ms, p99 ${f2(percentile(s, 99))} ms (n=${s.length})`, { p50: percentile(s, 50), p99: percentile(s, 99), n: s.length });
        }
        const d50 = percentile(g, 50) - percentile(u, 50);
        const d99 = percentile(g, 99) - percentile(u, 99);
        add(`ttfe_overhead_${tag}${dialect}_gengate`, `=> gengate ${dialect} first-event overhead over the upstream's own: p50 +${f2(d50)} ms, p99 +${f2(d99)} ms (targets p50 <= 3 ms: ${met(d50 <= 3)}, p99 <= 15 ms: ${met(d99 <= 15)})`, { p50: d50, p99: d99 });
      }
    }

    process.stdout.write(`open streams in one gengate process\n`);
    const open = await openStreams(gg, host.pid, STREAMS);
    add('open_streams', `gengate, ${open.streams} streams open at once (each past its first token): RSS ${f1(open.rssOpenMb)} MB (before: ${f1(open.rssIdleMb)} MB; all open after ${f1(open.openSeconds)} s)${STREAMS === 1_000 ? ` (target <= 300 MB: ${met(open.rssOpenMb <= 300)})` : ''}`, open);
  } finally {
    await Promise.all([host.stop(), portkey.stop(), proxy.stop(), upstream.stop(), anthropic.stop()]);
    await db.close();
  }
  record['load_average_end'] = loadavg();
  process.stdout.write(`load average at the end: ${loadavg().map(f2).join(', ')}\n`);
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${new Date().toISOString().slice(0, 10)}-${commit}-openai${quick ? '-quick' : ''}.json`);
  writeFileSync(file, `${JSON.stringify({ commit, date: new Date().toISOString(), cores: cpus().length, database: process.env['DATABASE_URL'] ? 'external' : 'embedded', quick, portkey: PORTKEY_VERSION, ...record }, null, 2)}\n`);
  process.stdout.write(`written ${file}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
