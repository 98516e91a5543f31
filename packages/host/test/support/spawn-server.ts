import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { startContractProxy } from './contract-proxy.js';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
const NODE = join(REPO_ROOT, 'node_modules/.bin/node');
const CLI = join(REPO_ROOT, 'packages/host/src/server/cli.ts');
const BUILT_CLI = join(REPO_ROOT, 'packages/host/dist/server/cli.js');

/**
 * How spawned CLI processes run: from the sources through tsx (the default, so a test sees the code as it
 * is in the work tree), or, with GENGATE_TEST_CLI=dist, the compiled CLI of the workspace's `tsc -b` output.
 * CI sets `dist` after building (npm ci's prepare runs `tsc -b` on the same sources): a process then starts
 * without tsx's loader hooks and transforms, about 1.4 s less CPU per `gengate serve` or `gengate users
 * create` (measured with `--help` under load: 2.9 s user through tsx, 1.6 s compiled).
 */
function cliCommand(): readonly string[] {
  const mode = process.env['GENGATE_TEST_CLI'] ?? 'source';
  if (mode === 'source') return ['--conditions=@gengate/source', '--import', 'tsx', CLI];
  if (mode === 'dist') {
    if (!existsSync(BUILT_CLI)) throw new Error(`GENGATE_TEST_CLI=dist: ${BUILT_CLI} is missing (run \`npx tsc -b\` first)`);
    return [BUILT_CLI];
  }
  throw new Error(`GENGATE_TEST_CLI=${mode}: expected "source", "dist" or nothing`);
}

export interface SpawnedServer {
  /** The server's base URL, through a proxy that checks every exchange against docs/openapi.yaml. */
  readonly url: string;
  /** The server itself, without the proxy (which buffers whole bodies): for streamed answers. */
  readonly directUrl: string;
  readonly process: ChildProcess;
  readonly output: () => string;
  /**
   * Its output once every line logged so far has been written: the server logs to standard output in
   * batches (at most 100 ms late), so this sends a request that answers 200 (refusals are only summarized) with a marker id and waits for its log line
   * (lines leave in order). Needs LOG_LEVEL info or lower.
   */
  loggedOutput(): Promise<string>;
  /** Sends the signal and waits for the process to exit; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Runs the real CLI (`gengate <args>`) on Node 24, from the sources with tsx or compiled (cliCommand). */
export function cliProcess(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(NODE, [...cliCommand(), ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a CLI command to completion and returns its stdout (throws on a non-zero exit). */
export async function runCli(args: readonly string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = cliProcess(args, env);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`gengate ${args.join(' ')} exited with ${String(code)}: ${err}`);
  return out;
}

/**
 * Starts `gengate serve` on a free port and waits for its "serving" line. Clients reach it through a
 * contract proxy (contract-proxy.ts), which is also its PUBLIC_URL, so result URLs go through it too.
 */
export async function spawnServer(env: NodeJS.ProcessEnv): Promise<SpawnedServer> {
  const proxy = await startContractProxy();
  const child = cliProcess(['serve'], { PORT: '0', LOG_LEVEL: 'info', PUBLIC_URL: proxy.url, ...env });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  let port: number;
  try {
    port = await new Promise<number>((resolvePromise, reject) => {
      const onData = () => {
        const m = /gengate is serving \S+\/api\/v1 \(port (\d+)\)/.exec(out);
        if (m?.[1]) {
          child.stdout?.off('data', onData);
          resolvePromise(Number(m[1]));
        }
      };
      child.stdout?.on('data', onData);
      child.once('exit', (code) => reject(new Error(`gengate serve exited early (${String(code)}):\n${out}`)));
    });
    proxy.target(port);
  } catch (err) {
    await proxy.close();
    throw err;
  }
  return {
    url: proxy.url,
    directUrl: `http://127.0.0.1:${port}`,
    process: child,
    output: () => out,
    async loggedOutput() {
      const marker = `log-flush-${Date.now()}-${Math.random().toString(36).slice(2)}`;
      await fetch(`${proxy.url}/api/v1/openapi.json`, { headers: { 'x-request-id': marker } }).then((r) => r.arrayBuffer());
      return waitFor(async () => (out.includes(marker) ? out : null), { timeoutMs: 30_000, what: 'the log line of a marker request' });
    },
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      try {
        if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
        const exited = once(child, 'exit') as Promise<[number | null]>;
        child.kill(signal);
        const [code] = await exited;
        return code;
      } finally {
        await proxy.close();
      }
    },
  };
}

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'gengate-host-test-'));
}

/** Polls fn until it returns a non-null value or the deadline passes. */
export async function waitFor<T>(fn: () => Promise<T | null | undefined>, opts: { timeoutMs: number; intervalMs?: number; what: string }): Promise<T> {
  const until = Date.now() + opts.timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null && v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out after ${opts.timeoutMs} ms waiting for ${opts.what}`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 50));
  }
}
