/**
 * The servers of the /v1 bench, each in its own process so that its CPU time is its own: the zero-latency
 * fake OpenAI upstream, a bare node:http proxy to it, and Portkey's gateway 1.15.2 pointed at it
 * (installed for the bench only, never a dependency of gengate); and the zero-latency fake Anthropic upstream
 * of the Messages rows.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');
export const PORTKEY_VERSION = '1.15.2';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
}

/** Spawns a process and resolves with the URL its output announces (`pattern`'s first group). */
async function started(child: ChildProcess, pattern: RegExp, what: string): Promise<ServerProcess> {
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8_000);
      const m = pattern.exec(output);
      if (m?.[1]) resolve(m[1]);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${String(code)}:\n${output.slice(-2_000)}`)));
    setTimeout(() => reject(new Error(`${what} did not start within 60 s:\n${output.slice(-2_000)}`)), 60_000).unref();
  });
  return { url, pid: child.pid ?? -1, stop: stopper(child) };
}

/** packages/testing's fake OpenAI (bench/support/fake-openai-server.ts), zero latency. */
export function startFakeUpstream(): Promise<ServerProcess> {
  const child = spawn(NODE, ['--conditions=@gengate/source', '--import', 'tsx', join(ROOT, 'bench/support/fake-openai-server.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, /fake-openai (http:\/\/\S+)/, 'the fake OpenAI upstream');
}

/** packages/testing's fake Anthropic Messages API (bench/support/fake-anthropic-server.ts), zero latency. */
export function startFakeAnthropicUpstream(): Promise<ServerProcess> {
  const child = spawn(NODE, ['--conditions=@gengate/source', '--import', 'tsx', join(ROOT, 'bench/support/fake-anthropic-server.ts')], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, /fake-anthropic (http:\/\/\S+)/, 'the fake Anthropic upstream');
}

/**
 * The floor: a node:http server that forwards POST /v1/chat/completions to the upstream over keep-alive
 * connections and pipes the answer back (streamed or not), nothing else.
 */
export function startBareProxy(upstreamUrl: string): Promise<ServerProcess> {
  const source = `
    const http = require('node:http');
    const target = new URL(${JSON.stringify(upstreamUrl)});
    const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
    const server = http.createServer((req, res) => {
      const up = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, agent,
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json', authorization: 'Bearer sk-bench-upstream' } }, (u) => {
        res.writeHead(u.statusCode ?? 502, u.headers);
        u.pipe(res);
      });
      up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
      res.on('close', () => { if (!res.writableFinished) up.destroy(); });
      req.pipe(up);
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => console.log('bare-proxy http://127.0.0.1:' + server.address().port));`;
  const child = spawn(NODE, ['-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  return started(child, /bare-proxy (http:\/\/\S+)/, 'the bare proxy');
}

/** Where the bench keeps its own install of Portkey's gateway (outside the project's dependencies). */
export function portkeyDir(): string {
  return process.env['BENCH_PORTKEY_DIR'] ?? join(tmpdir(), `gengate-bench-portkey-${PORTKEY_VERSION}`);
}

/** Installs `@portkey-ai/gateway@1.15.2` into the cache directory on first use (npm, the registry). */
export function ensurePortkey(): string {
  const dir = portkeyDir();
  const entry = join(dir, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  if (!existsSync(entry)) {
    mkdirSync(dir, { recursive: true });
    process.stdout.write(`installing @portkey-ai/gateway@${PORTKEY_VERSION} into ${dir} (first use)\n`);
    execFileSync('npm', ['install', '--prefix', dir, '--no-save', '--no-audit', '--no-fund', `@portkey-ai/gateway@${PORTKEY_VERSION}`], { stdio: 'inherit' });
  }
  return entry;
}

/**
 * Portkey's gateway as its README starts it (`npx @portkey-ai/gateway`, i.e. `node build/start-server.js`),
 * headless (no console UI), on a free port. Requests name the upstream with its headers
 * (`x-portkey-provider: openai`, `x-portkey-custom-host: <fake>/v1`, https://portkey.ai/docs).
 */
export async function startPortkey(): Promise<ServerProcess> {
  const entry = ensurePortkey();
  const port = 18_000 + Math.floor(Math.random() * 2_000);
  const child = spawn(NODE, [entry, `--port=${port}`, '--headless'], { cwd: portkeyDir(), env: { ...process.env, NODE_ENV: 'production' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const server = await started(child, /(Ready) for connections/, "Portkey's gateway");
  return { ...server, url: `http://127.0.0.1:${port}` };
}
