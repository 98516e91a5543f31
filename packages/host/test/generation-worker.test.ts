import { randomBytes } from 'node:crypto';
import {
  ADAPTER_SPECIFICATION_VERSION,
  createGengate,
  MemoryBlobStore,
  UpstreamError,
  type AdapterCall,
  type AuthContext,
  type Gengate,
  type GenerationResult,
  type ImageCapabilities,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
  type TaskRecord,
  type TransactionScope,
  type VideoCapabilities,
} from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing';
import pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGenerationWorker, type GenerationWorker } from '../src/jobs/generation-worker.js';
import { createBoss } from '../src/jobs/queues.js';
import { openPool } from './support/open-pool.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';

const logger = pino({ level: 'silent' });

// ---------- a fake provider, defined here so every behaviour is under the test's control ----------

const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4]);
const MP4_BYTES = new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 5, 6, 7, 8]);

const imageCaps: ImageCapabilities = {
  modality: 'image',
  promptRequired: true,
  aspectRatios: ['1:1', '16:9'],
  minSide: 16,
  maxSide: 1_024,
  defaultLongSide: 512,
  supportsNegativePrompt: false,
  supportsSeed: true,
  maxReferenceImages: 0,
};

const videoCaps: VideoCapabilities = {
  modality: 'video',
  promptRequired: true,
  durations: [5, 10],
  resolutions: ['720p', '1080p'],
  aspectRatios: ['16:9', '9:16'],
  maxReferenceImages: 0,
  maxReferenceVideos: 0,
  supportsWatermark: false,
  supportsMultiShots: false,
  supportsTranslation: false,
};

const IMAGE_PRICE = 2_000_000;
const VIDEO_PRICE_PER_SECOND = 1_000_000;

function imageModel(id: string, description: string): ModelDescriptor {
  return {
    id,
    name: id,
    provider: 'fake',
    modality: 'image',
    description,
    tags: ['fake'],
    isPopular: false,
    isActive: true,
    capabilities: imageCaps,
    pricing: { kind: 'per_image', perImage: IMAGE_PRICE },
  };
}

function videoModel(id: string, description: string): ModelDescriptor {
  return {
    id,
    name: id,
    provider: 'fake',
    modality: 'video',
    description,
    tags: ['fake'],
    isPopular: false,
    isActive: true,
    capabilities: videoCaps,
    pricing: { kind: 'per_second', perSecond: { '720p': VIDEO_PRICE_PER_SECOND, '1080p': 2 * VIDEO_PRICE_PER_SECOND } },
  };
}

const MODELS = {
  image: 'fake.image',
  broken: 'fake.broken',
  flaky: 'fake.flaky',
  video: 'fake.video',
  gated: 'fake.gated-video',
} as const;

const LONG_RUNNING = new Set<string>([MODELS.video, MODELS.gated]);

function count(map: Map<string, number>, key: string): number {
  const n = (map.get(key) ?? 0) + 1;
  map.set(key, n);
  return n;
}

function handleJob(handle: JsonValue): string {
  if (typeof handle === 'object' && handle !== null && !Array.isArray(handle) && typeof handle['job'] === 'string') return handle['job'];
  throw new Error(`unexpected handle ${JSON.stringify(handle)}`);
}

class FakeAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'fake';
  readonly statusPollIntervalMs = 20;
  readonly models: readonly ModelDescriptor[] = [
    imageModel(MODELS.image, 'one-shot image: returns PNG bytes'),
    imageModel(MODELS.broken, 'one-shot image whose generate always throws'),
    imageModel(MODELS.flaky, 'one-shot image failing retryably on its first call only'),
    videoModel(MODELS.video, 'long-running video: running twice, then succeeded'),
    videoModel(MODELS.gated, 'long-running video: running until the gate opens'),
  ];
  /** Per task id. */
  readonly generateCalls = new Map<string, number>();
  readonly startCalls = new Map<string, number>();
  readonly statusCalls = new Map<string, number>();
  gateOpen = false;

  isLongRunning(modelId: string): boolean {
    return LONG_RUNNING.has(modelId);
  }

  async generate(call: AdapterCall): Promise<GenerationResult> {
    const n = count(this.generateCalls, call.taskId);
    if (call.model.id === MODELS.broken) throw new UpstreamError('boom');
    if (call.model.id === MODELS.flaky && n === 1) throw new UpstreamError('flaky', { isRetryable: true });
    return { files: [{ kind: 'bytes', data: PNG_BYTES, mediaType: 'image/png' }] };
  }

  async start(call: AdapterCall): Promise<JsonValue> {
    count(this.startCalls, call.taskId);
    return { job: call.taskId, model: call.model.id };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const job = handleJob(handle);
    const n = count(this.statusCalls, job);
    const done: LongRunningStatus = { state: 'succeeded', result: { files: [{ kind: 'bytes', data: MP4_BYTES, mediaType: 'video/mp4' }] } };
    if (call.model.id === MODELS.gated) return this.gateOpen ? done : { state: 'running', progress: 0.5 };
    return n <= 2 ? { state: 'running', progress: n / 3 } : done;
  }
}

// ---------- polling helpers (bounded deadlines, no blind sleeps) ----------

async function waitFor<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 30_000, intervalMs = 10): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

describe('generation worker on PostgreSQL', () => {
  const adapter = new FakeAdapter();
  const blobs = new MemoryBlobStore();
  let db: TestDatabase;
  let pool: pg.Pool;
  let closePool: (() => Promise<void>) | null = null;
  let boss: PgBoss | null = null;
  let worker: GenerationWorker | null = null;
  let gengate: Gengate;
  let stores: TransactionScope;
  const latenciesMs: number[] = [];
  const submittedAt = new Map<string, number>();

  /** One "process": pg-boss, the stores, the use cases and the worker over the shared database. */
  async function startHost(): Promise<void> {
    boss = await createBoss({ connectionString: db.url, logger });
    const pgStores = createPgStores(pool, boss);
    stores = pgStores.stores;
    gengate = createGengate({
      adapters: [adapter],
      stores: pgStores.stores,
      unitOfWork: pgStores.unitOfWork,
      blobStore: blobs,
      resultUrls: { urlFor: (key) => `http://127.0.0.1:9/api/v1/files/${key}` },
      paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
      logger,
    });
    worker = await startGenerationWorker(boss, gengate, { logger });
  }

  async function stopHost(): Promise<void> {
    await worker?.stop({ graceMs: 0 });
    worker = null;
    await boss?.stop({ graceful: true, timeout: 5_000 });
    boss = null;
  }

  async function newCaller(credits = 1_000): Promise<AuthContext> {
    const { api_key } = await gengate.admin.createUser({ email: `worker-${randomBytes(5).toString('hex')}@example.com`, credits });
    const { userId, apiKeyId } = await gengate.authenticate.execute(api_key, '127.0.0.1');
    return { userId, apiKeyId };
  }

  async function submit(auth: AuthContext, modelId: string, body: unknown = { prompt: 'a red fox' }): Promise<string> {
    const started = Date.now();
    const accepted = await gengate.submitRun.execute(auth, modelId, body);
    expect(accepted).toMatchObject({ code: 200, status: 'waiting' });
    const task = await stores.tasks.findById(accepted.task_id);
    expect(task?.userId).toBe(auth.userId);
    submittedAt.set(accepted.task_id, started);
    return accepted.task_id;
  }

  async function ended(taskId: string, timeoutMs = 30_000): Promise<TaskRecord> {
    const task = await waitFor(
      `task ${taskId} to end`,
      async () => {
        const t = await stores.tasks.findById(taskId);
        return t && (t.status === 'success' || t.status === 'fail') ? t : null;
      },
      timeoutMs,
    );
    // The worker stamps startedAt (its first markGenerating) with the same clock as `submittedAt`.
    const submitted = submittedAt.get(taskId);
    if (submitted !== undefined && task.startedAt) latenciesMs.push(task.startedAt.getTime() - submitted);
    return task;
  }

  async function usageFor(auth: AuthContext, taskId: string) {
    const page = await stores.ledger.listTransactions(auth.userId, 1, 100);
    return page.items.filter((t) => t.taskId === taskId && t.paymentMethod === 'usage');
  }

  async function expectBalanceInvariant(auth: AuthContext): Promise<void> {
    const page = await stores.ledger.listTransactions(auth.userId, 1, 100);
    const sum = page.items.filter((t) => t.status === 'completed').reduce((s, t) => s + t.creditsMicro, 0);
    expect((await stores.ledger.getBalance(auth.userId)).balanceMicro).toBe(sum);
  }

  beforeAll(async () => {
    db = await createTestDatabase();
    ({ pool, close: closePool } = openPool(db.url, 10));
    await runMigrations(pool);
    await startHost();
  });

  afterAll(async () => {
    await stopHost();
    await closePool?.();
    await db?.drop();
    if (latenciesMs.length > 0) {
      const sorted = [...latenciesMs].sort((a, b) => a - b);
      const median = sorted[Math.floor(sorted.length / 2)];
      process.stdout.write(
        `submit -> generating latency over ${sorted.length} tasks: min ${sorted[0]} ms, median ${median} ms, max ${sorted[sorted.length - 1]} ms\n`,
      );
    }
  });

  it('takes a one-shot image task to success with its output stored and exactly one usage transaction', async () => {
    const auth = await newCaller(100);
    const taskId = await submit(auth, MODELS.image);
    const task = await ended(taskId);
    expect(task.status).toBe('success');
    expect(task.errorMessage).toBeNull();
    expect(task.chargedMicro).toBe(IMAGE_PRICE);
    expect(task.attempts).toBe(1);
    expect(task.outputs).toEqual([{ key: `${taskId}/output-0.png`, mediaType: 'image/png', bytes: PNG_BYTES.byteLength }]);
    expect(task.startedAt).not.toBeNull();
    expect(task.finishedAt).not.toBeNull();
    const blob = await blobs.get(`${taskId}/output-0.png`);
    expect(blob?.mediaType).toBe('image/png');
    expect(Buffer.from(blob?.data ?? []).equals(Buffer.from(PNG_BYTES))).toBe(true);

    const view = await gengate.getTask.execute(auth, taskId);
    expect(view).toMatchObject({ task_id: taskId, status: 'success', error_message: null });
    expect(view.result_urls).toEqual([`http://127.0.0.1:9/api/v1/files/${taskId}/output-0.png`]);

    const usage = await usageFor(auth, taskId);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ creditsMicro: -IMAGE_PRICE, amountMicroUsd: IMAGE_PRICE / 100, status: 'completed' });
    expect(await stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - IMAGE_PRICE, heldMicro: 0 });
    expect(adapter.generateCalls.get(taskId)).toBe(1);
    await expectBalanceInvariant(auth);
  });

  it('ends a task whose generate throws in fail: error message, no usage transaction, hold released', async () => {
    const auth = await newCaller(10);
    const taskId = await submit(auth, MODELS.broken);
    const task = await ended(taskId);
    expect(task.status).toBe('fail');
    expect(task.errorMessage).toContain('boom');
    expect(task.outputs).toEqual([]);
    expect(task.chargedMicro).toBeNull();
    const view = await gengate.getTask.execute(auth, taskId);
    expect(view.result_urls).toEqual([]);
    expect(view.error_message).toContain('boom');
    expect(await usageFor(auth, taskId)).toEqual([]);
    expect(await stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 10_000_000, heldMicro: 0 });
    expect(adapter.generateCalls.get(taskId)).toBe(1);
    await expectBalanceInvariant(auth);
  });

  it('drives a long-running task through start/status, persisting its upstream handle', async () => {
    const auth = await newCaller(100);
    const taskId = await submit(auth, MODELS.video, { prompt: 'a paper boat', video_params: { duration: 5, resolution: '720p' } });
    const task = await ended(taskId);
    expect(task.status).toBe('success');
    expect(task.upstreamHandle).toEqual({ job: taskId, model: MODELS.video });
    expect(adapter.startCalls.get(taskId)).toBe(1);
    expect(adapter.statusCalls.get(taskId)).toBe(3);
    expect(task.outputs).toEqual([{ key: `${taskId}/output-0.mp4`, mediaType: 'video/mp4', bytes: MP4_BYTES.byteLength }]);
    expect((await blobs.get(`${taskId}/output-0.mp4`))?.mediaType).toBe('video/mp4');
    const price = 5 * VIDEO_PRICE_PER_SECOND;
    const usage = await usageFor(auth, taskId);
    expect(usage).toHaveLength(1);
    expect(usage[0]?.creditsMicro).toBe(-price);
    expect(await stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - price, heldMicro: 0 });
    await expectBalanceInvariant(auth);
  });

  it('retries a retryable upstream failure and ends in success on the retry', async () => {
    const auth = await newCaller(100);
    const taskId = await submit(auth, MODELS.flaky);
    const task = await ended(taskId, 45_000);
    expect(task.status).toBe('success');
    expect(task.attempts).toBe(2);
    expect(adapter.generateCalls.get(taskId)).toBe(2);
    expect(await usageFor(auth, taskId)).toHaveLength(1);
    expect(await stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - IMAGE_PRICE, heldMicro: 0 });
    await expectBalanceInvariant(auth);
  });

  it('resumes a long-running task after a worker restart, polling the persisted handle without starting it again', async () => {
    adapter.gateOpen = false;
    const auth = await newCaller(100);
    const taskId = await submit(auth, MODELS.gated, { prompt: 'restart me', video_params: { duration: 10 } });
    const price = 10 * VIDEO_PRICE_PER_SECOND;

    // Generating, handle persisted, and the worker is polling the upstream.
    await waitFor('the first worker to poll the upstream', async () => {
      const t = await stores.tasks.findById(taskId);
      return t?.status === 'generating' && t.upstreamHandle !== null && (adapter.statusCalls.get(taskId) ?? 0) >= 2 ? t : null;
    });
    await stopHost();

    const stalled = await stores.tasks.findById(taskId);
    expect(stalled).toMatchObject({ status: 'generating', upstreamHandle: { job: taskId, model: MODELS.gated }, attempts: 1 });
    expect(await stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000, heldMicro: price });
    const polledBefore = adapter.statusCalls.get(taskId) ?? 0;

    await startHost();
    await waitFor('the new worker to poll the persisted handle', async () => ((adapter.statusCalls.get(taskId) ?? 0) > polledBefore ? true : null));
    adapter.gateOpen = true;

    const task = await ended(taskId, 45_000);
    expect(task.status).toBe('success');
    expect(adapter.startCalls.get(taskId)).toBe(1);
    expect(task.attempts).toBeGreaterThanOrEqual(2);
    expect(task.upstreamHandle).toEqual({ job: taskId, model: MODELS.gated });
    expect(await usageFor(auth, taskId)).toHaveLength(1);
    expect(await stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - price, heldMicro: 0 });
    await expectBalanceInvariant(auth);
  });

  it('starts waiting tasks promptly (woken by NOTIFY, not by the 1 s poll)', async () => {
    const auth = await newCaller(100);
    const before = latenciesMs.length;
    for (let i = 0; i < 5; i++) expect((await ended(await submit(auth, MODELS.image))).status).toBe('success');
    const samples = latenciesMs.slice(before);
    expect(samples).toHaveLength(5);
    const sorted = [...samples].sort((a, b) => a - b);
    // Measured ~10-40 ms; a worker that only polled every second would show a median near 500 ms.
    expect(sorted[2]).toBeLessThan(250);
    expect(sorted[4]).toBeLessThan(1_500);
  });
});
