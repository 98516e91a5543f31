/**
 * npm run bench — measurements, not tests:
 *  1. the added cost of authentication + per-key limit checking (in-process, PostgreSQL store);
 *  2. the same seen over HTTP: GET /billing/balance minus the unauthenticated GET /healthz;
 *  3. submit -> adapter called latency on an idle host (LISTEN/NOTIFY wake-up), over 500 tasks.
 * Uses DATABASE_URL's server when set (a fresh database on it), else an embedded PostgreSQL.
 */
import type { AddressInfo } from 'node:net';
import {
  ADAPTER_SPECIFICATION_VERSION,
  createGengate,
  MemoryBlobStore,
  type AdapterCall,
  type GenerationResult,
  type ProviderAdapter,
} from '@gengate/core';
import { SANDBOX_MODELS } from '@gengate/adapters';
import {
  createBoss,
  createGengateRouter,
  createPgKeyRateLimiter,
  createPgStores,
  ManualPaymentProcessor,
  runMigrations,
  startGenerationWorker,
} from '@gengate/host';
import express from 'express';
import pg from 'pg';
import pino from 'pino';
import { scratchDatabase } from '../scripts/support/scratch-database.js';

function percentiles(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
  return `p50 ${at(50).toFixed(3)} ms, p99 ${at(99).toFixed(3)} ms (n=${s.length})`;
}

/** An adapter that records when it is called and answers at once. */
function probeAdapter(calledAt: Map<string, number>): ProviderAdapter {
  const model = { ...SANDBOX_MODELS.chat, id: 'probe.chat', provider: 'probe' };
  return {
    specificationVersion: ADAPTER_SPECIFICATION_VERSION,
    providerId: 'probe',
    models: [model],
    isLongRunning: () => false,
    async generate(call: AdapterCall): Promise<GenerationResult> {
      calledAt.set(call.taskId, performance.now());
      return { files: [{ kind: 'bytes', data: new TextEncoder().encode('ok'), mediaType: 'text/plain' }], usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
}

async function main(): Promise<void> {
  const logger = pino({ level: 'silent' });
  const db = await scratchDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 20 });
  await runMigrations(pool);
  const boss = await createBoss({ connectionString: db.url, logger });
  const { stores, unitOfWork } = createPgStores(pool, boss);
  const calledAt = new Map<string, number>();
  const blobStore = new MemoryBlobStore();
  const gengate = createGengate({
    adapters: [probeAdapter(calledAt)],
    stores,
    unitOfWork,
    blobStore,
    resultUrls: { urlFor: (k) => `http://bench/${k}` },
    paymentProcessor: new ManualPaymentProcessor(),
  });
  const limiter = createPgKeyRateLimiter(pool);
  const { api_key: secret } = await gengate.admin.createUser({ email: 'bench@example.com', credits: 1_000_000 });
  const auth = await gengate.authenticate.execute(secret, '127.0.0.1');
  await stores.keys.update(auth.apiKeyId, auth.userId, { limits: { perMinute: 1e9, perHour: 1e9, perDay: 1e9 } });
  const limits = { perMinute: 1e9, perHour: 1e9, perDay: 1e9 };

  const authOnly: number[] = [];
  const authAndLimit: number[] = [];
  for (let i = 0; i < 2_000; i++) {
    const t0 = performance.now();
    const a = await gengate.authenticate.execute(secret, '127.0.0.1');
    const t1 = performance.now();
    await limiter.consume(a.apiKeyId, limits);
    const t2 = performance.now();
    if (i >= 100) {
      authOnly.push(t1 - t0);
      authAndLimit.push(t2 - t0);
    }
  }
  console.log(`authentication (hash + key lookup):            ${percentiles(authOnly)}`);
  console.log(`authentication + 3 limit windows (PostgreSQL):  ${percentiles(authAndLimit)}`);

  const app = express();
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use('/api/v1', createGengateRouter({ gengate, blobStore, logger, rateLimiter: limiter }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const timed = async (path: string, headers: Record<string, string>) => {
    const out: number[] = [];
    for (let i = 0; i < 1_100; i++) {
      const t0 = performance.now();
      const res = await fetch(base + path, { headers });
      await res.arrayBuffer();
      if (i >= 100) out.push(performance.now() - t0);
    }
    return out;
  };
  const health = await timed('/healthz', {});
  const balance = await timed('/api/v1/billing/balance', { Authorization: `Bearer ${secret}` });
  console.log(`HTTP GET /healthz (no auth):                    ${percentiles(health)}`);
  console.log(`HTTP GET /api/v1/billing/balance (auth+limits): ${percentiles(balance)}`);

  const worker = await startGenerationWorker(boss, gengate, { logger, concurrency: 4 });
  const latencies: number[] = [];
  for (let i = 0; i < 520; i++) {
    const t0 = performance.now();
    const { task_id: taskId } = await gengate.submitRun.execute(auth, 'probe.chat', { prompt: 'ping' });
    while (!calledAt.has(taskId)) await new Promise((r) => setImmediate(r));
    if (i >= 20) latencies.push((calledAt.get(taskId) ?? t0) - t0);
  }
  console.log(`submit -> adapter called (idle host):           ${percentiles(latencies)}`);

  server.close();
  await worker.stop();
  await boss.stop({ graceful: false });
  await pool.end();
  await db.close();
}

await main();
