import { createSandboxAdapter } from '@gengate/adapters';
import type { ProviderAdapter } from '@gengate/core';
import { createGengateHost, gengateHono, type GengateHost } from '@gengate/host';
import { Hono } from 'hono';

export interface AppOptions {
  readonly databaseUrl: string;
  /** Where clients reach the app, e.g. https://app.example.com (read each time: may be known only after listening). */
  readonly publicUrl: () => string;
  /** Where gengate keeps result files. */
  readonly filesDir: string;
  readonly adapters?: readonly ProviderAdapter[];
  readonly shutdownGraceMs?: number;
}

export interface App {
  /** The Hono app: serve `app.fetch` (@hono/node-server's `serve`, Bun, Deno). */
  readonly app: Hono;
  readonly gengate: GengateHost;
  /** Creates gengate's tables and starts its queue and workers. */
  start(): Promise<void>;
  /** Stops gengate's workers, queue and pool (close the HTTP server first). */
  close(): Promise<void>;
}

/**
 * A Hono app of your own with gengate in it: `/api/v1` and the OpenAI-compatible `/v1` are handed to
 * gengate's fetch handler through the Hono bridge; every other route is the app's.
 */
export async function createApp(o: AppOptions): Promise<App> {
  const gengate = await createGengateHost({
    database: { url: o.databaseUrl },
    adapters: o.adapters ?? [createSandboxAdapter()],
    filesDir: o.filesDir,
    publicUrl: o.publicUrl,
    openai: true,
    settings: { shutdownGraceMs: o.shutdownGraceMs ?? 10_000 },
  });

  const app = new Hono();
  app.get('/', (c) => c.text('A Hono app; gengate answers at /api/v1 and /v1.\n'));
  // The peer address is read from @hono/node-server's Node request (pass `clientIp` on another runtime).
  const handler = gengateHono(gengate);
  app.all('/api/v1/*', handler);
  app.all('/v1/*', handler);

  return {
    app,
    gengate,
    async start() {
      await gengate.migrate();
      await gengate.startWorkers();
    },
    close: () => gengate.close(),
  };
}
