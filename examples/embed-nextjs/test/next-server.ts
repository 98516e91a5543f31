import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

const EXAMPLE = new URL('..', import.meta.url).pathname;
const REPO = join(EXAMPLE, '../..');
const NEXT = join(REPO, 'node_modules/next/dist/bin/next');

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))));
}

function stale(): boolean {
  const sources = Math.max(
    ...['app', 'lib', 'next.config.mjs', 'package.json', 'tsconfig.json'].map((p) => newest(join(EXAMPLE, p))),
    ...['core', 'adapters', 'host'].map((p) => newest(join(REPO, 'packages', p, 'dist'))),
  );
  return newest(join(EXAMPLE, '.next/BUILD_ID')) <= sources;
}

const LOCK = join(EXAMPLE, '.next-build.lock');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** One build at a time in this folder (CI runs its two database lanes side by side); a dead owner's lock is taken over. */
async function withBuildLock(build: () => void): Promise<void> {
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = Number(existsSync(join(LOCK, 'pid')) ? readFileSync(join(LOCK, 'pid'), 'utf8') : '0');
    if (owner > 0 && !alive(owner)) rmSync(LOCK, { recursive: true, force: true });
    else await delay(500); // another process is building: its lock goes when it is done
  }
  try {
    writeFileSync(join(LOCK, 'pid'), String(process.pid));
    build();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/**
 * `next build`, unless .next holds a build newer than the app's sources and the gengate packages it
 * bundles (their dist/, which `npm ci` and `tsc -b` write). About a minute on two cores.
 */
export async function buildNextApp(): Promise<void> {
  if (!stale()) return;
  await withBuildLock(() => {
    if (!stale()) return; // built by the process that held the lock
    const built = spawnSync(process.execPath, [NEXT, 'build'], { cwd: EXAMPLE, encoding: 'utf8', env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' } });
    if (built.status !== 0) throw new Error(`next build failed (${String(built.status)}):\n${built.stdout}\n${built.stderr}`);
  });
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface NextServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** `next start` (production) on a free port of 127.0.0.1, resolved when it says it is ready. */
export async function startNextApp(env: NodeJS.ProcessEnv): Promise<NextServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [NEXT, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: EXAMPLE,
    env: { ...process.env, ...env, PUBLIC_URL: url, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/Ready in/.test(output)) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`next start exited (${String(code)}):\n${output}`)));
  });
  return {
    url,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
