/**
 * npm run scale:video — how many long-running videos one worker process follows at once.
 * 1,000 video tasks are submitted at once to a fake fal whose jobs take 60 s, on ONE gengate process
 * with default settings (the host as `npm start` runs it). Checks that every task ends in success
 * within 60 s + 30 s of the last submission, and reports the process's peak resident memory, its
 * peak open database connections and the number of status calls the upstream received.
 * Options: --tasks N (default 1000), --job-seconds S (default 60), --users U (default 20).
 * Writes a vitest-style JSON summary to the path given with --out (optional).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeFal } from '@gengate/testing';
import pg from 'pg';
import { runCli, tempDataDir } from '../packages/host/test/support/spawn-server.js';
import { scratchDatabase } from './support/scratch-database.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const TASKS = arg('tasks', 1_000);
const JOB_SECONDS = arg('job-seconds', 60);
const USERS = arg('users', 20);
const out = process.argv.includes('--out') ? process.argv[process.argv.indexOf('--out') + 1] : undefined;
const ROOT = join(import.meta.dirname, '..');
const MODEL = 'fal.hailuo-02-standard';

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<void> {
  const db = await scratchDatabase();
  const fal = await FakeFal.start({ durationMs: JOB_SECONDS * 1000 });
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: tempDataDir(),
    PORT: '0',
    LOG_LEVEL: 'warn',
    FAL_KEY: 'fal-scale-key-0123456789',
    FAL_BASE_URL: fal.runUrl,
    FAL_QUEUE_URL: fal.queueUrl,
    FAL_JWKS_URL: fal.jwksUrl,
  };
  const keys: string[] = [];
  for (let i = 0; i < USERS; i++) {
    keys.push((JSON.parse(await runCli(['users', 'create', '--email', `scale${i}@example.com`, '--credits', '1000000'], env)) as { api_key: string }).api_key);
  }
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), [join(ROOT, 'packages/host/dist/server/cli.js'), 'serve'], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      const m = /serving (http:\/\/[^\s/]+)/.exec(b.toString());
      if (m?.[1]) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`gengate exited with ${code}`)));
  });
  const pid = child.pid ?? -1;
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  let peakRss = rssMb(pid);
  let peakConnections = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(pid));
    void pool
      .query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name <> 'scale-sampler' and pid <> pg_backend_pid()`)
      .then((r) => (peakConnections = Math.max(peakConnections, (r.rows[0]?.n ?? 0) - 1)))
      .catch(() => undefined);
  }, 1_000);

  const startedAt = Date.now();
  let next = 0;
  const submitOne = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= TASKS) return;
      const res = await fetch(`${url}/api/v1/run/${MODEL}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${keys[i % USERS]}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ prompt: `scale ${i}`, video_params: { duration: 6 } }),
      });
      if (res.status !== 200) throw new Error(`submission ${i} answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: 32 }, submitOne));
  const lastSubmission = Date.now();
  console.log(`${TASKS} tasks submitted in ${((lastSubmission - startedAt) / 1000).toFixed(1)} s by ${USERS} users; jobs take ${JOB_SECONDS} s upstream`);

  const deadline = lastSubmission + (JOB_SECONDS + 30) * 1000;
  let counts = { success: 0, fail: 0, other: TASKS };
  while (Date.now() < deadline) {
    const { rows } = await pool.query<{ status: string; n: number }>(`select status, count(*)::int as n from gengate.tasks group by status`);
    const by = Object.fromEntries(rows.map((r) => [r.status, r.n]));
    counts = { success: by['success'] ?? 0, fail: by['fail'] ?? 0, other: TASKS - (by['success'] ?? 0) - (by['fail'] ?? 0) };
    if (counts.other === 0) break;
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const endedAfter = (Date.now() - lastSubmission) / 1000;
  clearInterval(sampler);
  const statusCalls = fal.upstream.calls.filter((c) => c.method === 'GET' && c.path.endsWith('/status')).length;
  const submissions = fal.jobs.submissions;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await pool.end();
  await fal.close();
  await db.close();

  const ok = counts.success === TASKS && endedAfter <= JOB_SECONDS + 30 && submissions === TASKS;
  const report = {
    tasks: TASKS,
    jobSeconds: JOB_SECONDS,
    users: USERS,
    success: counts.success,
    fail: counts.fail,
    unfinished: counts.other,
    secondsFromLastSubmissionToAllEnded: Number(endedAfter.toFixed(1)),
    upstreamSubmissions: submissions,
    statusCalls,
    statusCallsPerTask: Number((statusCalls / TASKS).toFixed(2)),
    peakRssMb: Number(peakRss.toFixed(1)),
    peakDatabaseConnections: peakConnections,
  };
  console.log(JSON.stringify(report, null, 2));
  console.log(ok ? 'PASS every task ended in success within the job time + 30 s, submitted upstream once' : 'FAIL');
  if (out) writeFileSync(out, JSON.stringify({ numPassedTests: ok ? 1 : 0, numFailedTests: ok ? 0 : 1, testResults: [], report }));
  process.exit(ok ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
