import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createGengateHost, type GengateHost } from '@gengate/host';

/**
 * The app's one gengate host, made on the first request (not while `next build` imports the routes):
 * DATABASE_URL (required), PUBLIC_URL (where clients reach the app: result URLs), FILES_DIR,
 * SANDBOX_LATENCY_MS and SANDBOX_CHAT_LATENCY_MS (the offline sandbox provider stands for real ones
 * here: pass your adapters).
 * It migrates gengate's tables and starts its queue; the workers that run tasks are not started here: they
 * run in a process of their own (`host.startWorkers()`; in the test, the test's process), as they should
 * beside route handlers, which a platform may freeze or scale between requests.
 */
const KEY = Symbol.for('gengate-example-embed-nextjs.host');
type Holder = { [KEY]?: Promise<GengateHost> };

async function createHost(): Promise<GengateHost> {
  const url = process.env['DATABASE_URL'];
  if (!url) throw new Error('DATABASE_URL is required (a postgres:// URL)');
  const latency = Number(process.env['SANDBOX_LATENCY_MS'] ?? 1_000);
  const chat = Number(process.env['SANDBOX_CHAT_LATENCY_MS'] ?? latency);
  const host = await createGengateHost({
    database: { url },
    adapters: [createSandboxAdapter({ latencyMs: { chat, image: latency, video: latency } })],
    filesDir: process.env['FILES_DIR'] ?? join(process.cwd(), '.data', 'files'),
    publicUrl: (process.env['PUBLIC_URL'] ?? 'http://localhost:3000').replace(/\/+$/, ''),
    openai: true,
  });
  await host.migrate();
  await host.start();
  return host;
}

/** The host, shared by every route module of this process (Next.js may load a module more than once). */
export function gengate(): Promise<GengateHost> {
  const holder = globalThis as Holder;
  holder[KEY] ??= createHost().catch((err: unknown) => {
    delete holder[KEY];
    throw err;
  });
  return holder[KEY];
}
