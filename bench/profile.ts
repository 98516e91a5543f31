/**
 * npm run bench:profile -- [submit|poll|balance|pipeline|v1] [seconds]
 * (`v1`: non-streamed POST /v1/chat/completions to openai.gpt-4o-mini, against bench:openai's zero-latency fake upstream)
 * Starts the host as `npm run bench` does, with V8's CPU profiler on, drives one load and prints where
 * the host's CPU went: the hottest functions by self time and the packages by total self time. The
 * .cpuprofile file (open it in Chrome DevTools) stays in bench/results/profiles/.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDatabase } from '../scripts/support/scratch-database.js';
import { createKeys, hostEnv, measure, submitOne } from './sections/gengate.js';
import { startFakeUpstream } from './sections/openai-servers.js';
import { startHost } from './support/host-process.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const scenario = (process.argv[2] ?? 'submit') as 'submit' | 'poll' | 'balance' | 'pipeline' | 'v1';
const seconds = Number(process.argv[3] ?? 6);
const DIR = join(import.meta.dirname, 'results', 'profiles');

/** Where a frame's code lives: a package name, gengate's own package, node internals or V8. */
function owner(url: string): string {
  if (!url) return '(v8)';
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 14).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  const pkg = /\/packages\/([^/]+)\//.exec(url);
  return pkg ? `@gengate/${pkg[1]}` : url;
}

function summarize(profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  for (const [id, us] of self) {
    const f = byId.get(id)?.callFrame;
    if (!f) continue;
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|packages)\//, '')}:${f.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byOwner.set(owner(f.url), (byOwner.get(owner(f.url)) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n');
  process.stdout.write(`\nby package (self time, ${(total / 1e6).toFixed(2)} s sampled)\n${top(byOwner, 20)}\n\nhottest functions\n${top(byFunction, 30)}\n`);
}

async function main(): Promise<void> {
  mkdirSync(DIR, { recursive: true });
  const db = await scratchDatabase();
  const before = new Set(readdirSync(DIR));
  const upstream = scenario === 'v1' ? await startFakeUpstream() : null;
  const openai: Record<string, string> = upstream ? { OPENAI_API_KEY: 'sk-bench-upstream-0123456789', OPENAI_BASE_URL: `${upstream.url}/v1` } : {};
  const host = await startHost({ ...hostEnv(db.url, scenario === 'pipeline'), ...openai, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${DIR}` });
  try {
    const [key = ''] = await createKeys(db.url, 1);
    const headerSets = [{ authorization: `Bearer ${key}`, 'content-type': 'application/json' }];
    const body = scenario === 'v1' ? JSON.stringify({ model: 'openai.gpt-4o-mini', messages: [{ role: 'user', content: 'profile one two three' }], max_tokens: 16 }) : JSON.stringify({ prompt: 'profile', llm_params: { max_tokens: 8 } });
    const url =
      scenario === 'v1'
        ? `${host.url}/v1/chat/completions`
        : scenario === 'poll'
          ? `${host.url}/api/v1/run/tasks/${await submitOne(host, key)}`
          : scenario === 'balance'
            ? `${host.url}/api/v1/billing/balance`
            : `${host.url}/api/v1/run/sandbox.echo-chat`;
    const get = scenario === 'poll' || scenario === 'balance';
    const r = await measure(host, { url, connections: 10, durationSeconds: seconds, headerSets, ...(get ? {} : { method: 'POST' as const, body }) });
    process.stdout.write(`${scenario}: ${Math.round(r.rps)} req/s, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms, ${Math.round(r.cpuMicrosPerRequest)} µs CPU/request (profiler on)\n`);
  } finally {
    await host.stop();
    await upstream?.stop();
    await db.close();
  }
  const written = readdirSync(DIR).filter((f) => f.endsWith('.cpuprofile') && !before.has(f));
  for (const f of written) {
    process.stdout.write(`\n${join(DIR, f)}`);
    summarize(JSON.parse(readFileSync(join(DIR, f), 'utf8')) as CpuProfile);
  }
}

await main();
