import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROBE_DIR } from '../sections/memory.js';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const PROBES = join(import.meta.dirname, '..', 'probes');

export interface HostProcess {
  readonly url: string;
  readonly pid: number;
  /** How it runs: compiled JavaScript (production) or TypeScript through tsx. */
  readonly mode: 'compiled' | 'tsx';
  stop(): Promise<void>;
}

/**
 * Node's flags as `npm start` passes them (the checkout's package.json's start script: `node <flags>
 * packages/host/...`), so the bench measures what production runs. GENGATE_BENCH_NODE_FLAGS replaces
 * them for an A/B run; GENGATE_BENCH_EXTRA_NODE_FLAGS are added to them (e.g. `--expose-gc`).
 */
export function productionNodeFlags(root: string = ROOT): string[] {
  const extra = (process.env['GENGATE_BENCH_EXTRA_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
  const override = process.env['GENGATE_BENCH_NODE_FLAGS'];
  if (override !== undefined) return [...override.split(' ').filter(Boolean), ...extra];
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string | undefined> }).scripts['start'] ?? '';
  const m = /^node\s+(.*?)\s*packages\/host\/dist\/server\/cli\.js/.exec(start);
  return [...(m?.[1] ?? '').split(' ').filter(Boolean), ...extra];
}

/**
 * Starts `gengate serve` as `npm start` runs it in production, as its own process (so its CPU is its own),
 * with the bench's memory probe loaded (bench/probes/memory-probe.mjs: a reading on SIGUSR2, nothing else)
 * and, when GENGATE_BENCH_STATEMENTS=1, the statement timer (bench/probes/statement-probe.mjs); when
 * GENGATE_BENCH_DISPATCH=1, the dispatch steps' moments (bench/probes/dispatch-probe.mjs); when
 * GENGATE_BENCH_ALLOC=1, the allocation counter (bench/probes/alloc-probe.mjs).
 * `root`: the checkout whose host is started (default this one; `npm run bench:poll -- --base DIR` starts
 * another checkout's beside it, with this checkout's Node and probes).
 */
export async function startHost(env: Record<string, string>, root: string = ROOT): Promise<HostProcess> {
  const compiled = join(root, 'packages', 'host', 'dist', 'server', 'cli.js');
  const mode = existsSync(compiled) ? 'compiled' : 'tsx';
  const probes = ['--import', join(PROBES, 'memory-probe.mjs'), ...(process.env['GENGATE_BENCH_STATEMENTS'] === '1' ? ['--import', join(PROBES, 'statement-probe.mjs')] : []), ...(process.env['GENGATE_BENCH_DISPATCH'] === '1' ? ['--import', join(PROBES, 'dispatch-probe.mjs')] : []), ...(process.env['GENGATE_BENCH_ALLOC'] === '1' ? ['--import', join(PROBES, 'alloc-probe.mjs')] : [])];
  const args =
    mode === 'compiled'
      ? [...productionNodeFlags(root), ...probes, compiled, 'serve']
      : ['--conditions=@gengate/source', '--import', 'tsx', ...probes, join(root, 'packages/host/src/server/cli.ts'), 'serve'];
  const child: ChildProcess = spawn(NODE, args, { cwd: root, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', GENGATE_PROBE_DIR: PROBE_DIR, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      // Its log lines (info, as in production) are read and dropped once it listens; the tail is kept for errors.
      output = (output + chunk.toString()).slice(-8_000);
      const m = /serving (http:\/\/[^\s/]+)|listening on (http:\/\/[^\s"]+)/.exec(output);
      if (m) resolve((m[1] ?? m[2] ?? '').replace(/\/api\/v1$/, ''));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`gengate exited with ${code}:\n${output.slice(-2000)}`)));
    setTimeout(() => reject(new Error(`gengate did not start within 60 s:\n${output.slice(-2000)}`)), 60_000).unref();
  });
  return {
    url,
    pid: child.pid ?? -1,
    mode,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
