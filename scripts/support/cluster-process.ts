import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { cliProcess } from '../../packages/host/test/support/spawn-server.js';

export interface ClusterProcess {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  output(): string;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A free loopback port (so a restarted API process comes back at the same address). */
export async function freePort(): Promise<number> {
  const s = createServer();
  s.listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as AddressInfo;
  s.close();
  await once(s, 'close');
  return port;
}

/**
 * `gengate serve` as a child process, resolved once it reports its port: "gengate is serving ... (port N)"
 * for the api and all roles, "gengate worker is running ... (port N)" for a worker-only process.
 */
export async function startGengate(name: string, env: NodeJS.ProcessEnv): Promise<ClusterProcess> {
  const child = cliProcess(['serve'], env);
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const onData = () => {
      const m = /gengate (?:is serving|worker is running)\b.*\(port (\d+)\)/.exec(out);
      if (m?.[1]) {
        child.stdout?.off('data', onData);
        child.off('exit', onExit);
        resolve(Number(m[1]));
      }
    };
    const onExit = (code: number | null) => reject(new Error(`${name} exited early (${String(code)}):\n${out}`));
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    pid: child.pid ?? -1,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill(signal);
      await exited;
    },
  };
}
