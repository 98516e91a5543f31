/**
 * npm run bench:healthz — a measurement, not a test: /healthz latency of a real `gengate serve` while
 * four 10 s 1080p sandbox videos render, against the same server idle. The sandbox renders on worker
 * threads; rendered on the event loop, every request waits for the frame loop.
 * Uses DATABASE_URL's server when set (a fresh database on it), else an embedded PostgreSQL.
 */
import { request } from 'node:http';
import { runCli, spawnServer, tempDataDir } from '../packages/host/test/support/spawn-server.js';
import { scratchDatabase } from '../scripts/support/scratch-database.js';

const VIDEOS = Number(process.env['BENCH_VIDEOS'] ?? 4);

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(performance.now() - started));
    })
      .on('error', reject)
      .end();
  });
}

function summary(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
  return `p50 ${at(50).toFixed(1)} ms, p99 ${at(99).toFixed(1)} ms, max ${(s.at(-1) ?? NaN).toFixed(1)} ms (n=${s.length})`;
}

async function main(): Promise<void> {
  const db = await scratchDatabase();
  const env = { DATABASE_URL: db.url, GENGATE_DATA_DIR: tempDataDir(), SANDBOX_LATENCY_MS: '100', LOG_LEVEL: 'warn' };
  const key = (JSON.parse(await runCli(['users', 'create', '--email', 'bench@example.com', '--credits', '10000'], env)) as { api_key: string }).api_key;
  const server = await spawnServer(env);
  const healthz = `${server.url}/healthz`;
  try {
    for (let i = 0; i < 20; i++) await get(healthz); // warm up
    const idle: number[] = [];
    for (let i = 0; i < 300; i++) idle.push(await get(healthz));

    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' } });
    const ids: string[] = [];
    const started = performance.now();
    for (let i = 0; i < VIDEOS; i++) {
      const res = await api('/run/sandbox.motion-video', { method: 'POST', body: JSON.stringify({ prompt: `bench ${i}`, video_params: { duration: 10, resolution: '1080p' } }) });
      ids.push(((await res.json()) as { task_id: string }).task_id);
    }
    let done = false;
    const watcher = (async () => {
      while (!done) {
        const statuses = await Promise.all(ids.map(async (id) => ((await (await api(`/run/tasks/${id}`)).json()) as { status: string }).status));
        if (statuses.some((s) => s === 'fail')) throw new Error(`a video failed: ${statuses.join(', ')}`);
        done = statuses.every((s) => s === 'success');
        if (!done) await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const busy: number[] = [];
    while (!done) {
      busy.push(await get(healthz));
      await new Promise((r) => setTimeout(r, 5));
    }
    await watcher;
    const renderSeconds = (performance.now() - started) / 1000;
    process.stdout.write(`/healthz idle:                       ${summary(idle)}\n`);
    process.stdout.write(`/healthz while ${VIDEOS} 1080p 10 s videos render: ${summary(busy)}\n`);
    process.stdout.write(`the ${VIDEOS} videos took ${renderSeconds.toFixed(1)} s from submission to success\n`);
  } finally {
    await server.stop();
    await db.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
