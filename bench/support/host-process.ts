import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
const COMPILED = join(ROOT, 'packages', 'host', 'dist', 'server', 'cli.js');

export interface HostProcess {
  readonly url: string;
  readonly pid: number;
  /** How it runs: compiled JavaScript (production) or TypeScript through tsx. */
  readonly mode: 'compiled' | 'tsx';
  stop(): Promise<void>;
}

/** Starts `gengate serve` as `npm start` runs it in production, as its own process (so its CPU is its own). */
export async function startHost(env: Record<string, string>): Promise<HostProcess> {
  const mode = existsSync(COMPILED) ? 'compiled' : 'tsx';
  // As `npm start` runs it: a young generation of 16 MB semi-spaces (docs/benchmarks.md, memory).
  const args = mode === 'compiled' ? ['--max-semi-space-size=16', COMPILED, 'serve'] : ['--conditions=@gengate/source', '--import', 'tsx', join(ROOT, 'packages/host/src/server/cli.ts'), 'serve'];
  const child: ChildProcess = spawn(NODE, args, { cwd: ROOT, env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
