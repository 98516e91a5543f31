import { randomBytes } from 'node:crypto';
import {
  ADAPTER_SPECIFICATION_VERSION,
  createGengate,
  MemoryBlobStore,
  UpstreamError,
  type AdapterCall,
  type AuthContext,
  type Gengate,
  type GengateCoreConfig,
  type GenerationResult,
  type ImageCapabilities,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
  type StartedJob,
  type TaskRecord,
  type TransactionScope,
  type VideoCapabilities,
  type WebhookEvent,
  type WebhookRequest,
  WebhookRejected,
} from '@gengate/core/internal';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TestDatabase } from '@gengate/testing/host';
import type pg from 'pg';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { expect } from 'vitest';
import { startGenerationWorker, type GenerationWorker, type GenerationWorkerOptions } from '../../src/jobs/generation-worker.js';
import { createBoss } from '../../src/postgres/boss-queues.js';
import { startWorkerNotifications } from '../../src/jobs/worker-notifications.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { createPgStores } from '../../src/postgres/pg-unit-of-work.js';
import { openPool } from './open-pool.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';
import { createMigratedTestDatabase } from './migrated-test-database.js';

export const logger = pino({ level: 'silent' });

export const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 1, 2, 3, 4]);
export const MP4_BYTES = new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d, 5, 6, 7, 8]);

const imageCaps: ImageCapabilities = {
  modality: 'image',
  promptRequired: true,
  aspectRatios: ['1:1', '16:9'],
  sizes: { kind: 'range', minSide: 16, maxSide: 1_024, defaultLongSide: 512 },
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

/** Upstream prices in micro-USD, and what they charge in micro-credits (no markup: x100). */
export const IMAGE_PRICE_USD = 20_000;
export const IMAGE_PRICE = IMAGE_PRICE_USD * 100;
export const VIDEO_PRICE_PER_SECOND_USD = 10_000;
export const VIDEO_PRICE_PER_SECOND = VIDEO_PRICE_PER_SECOND_USD * 100;

function model(id: string, modality: 'image' | 'video', description: string): ModelDescriptor {
  return {
    id,
    name: id,
    provider: 'fake',
    modality,
    description,
    tags: ['fake'],
    isPopular: false,
    isActive: true,
    capabilities: modality === 'image' ? imageCaps : videoCaps,
    pricing:
      modality === 'image'
        ? { kind: 'per_image', perImage: IMAGE_PRICE_USD }
        : { kind: 'per_second', perSecond: { '720p': VIDEO_PRICE_PER_SECOND_USD, '1080p': 2 * VIDEO_PRICE_PER_SECOND_USD } },
  };
}

export const MODELS = {
  image: 'fake.image',
  broken: 'fake.broken',
  flaky: 'fake.flaky',
  limited: 'fake.rate-limited',
  slow: 'fake.slow-image',
  video: 'fake.video',
  gated: 'fake.gated-video',
  flakyVideo: 'fake.flaky-video',
  shakyStatus: 'fake.shaky-status-video',
  urlImage: 'fake.url-image',
  urlVideo: 'fake.url-video',
  hooked: 'fake.hooked-video',
} as const;

const LONG_RUNNING = new Set<string>([MODELS.video, MODELS.gated, MODELS.flakyVideo, MODELS.shakyStatus, MODELS.hooked]);

/** The fake provider's webhook signing secret (HMAC-SHA256 over `<timestamp>.<body>`). */
export const FAKE_WEBHOOK_SECRET = 'fake-webhook-secret';

export function signFakeWebhook(body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signature = createHmac('sha256', FAKE_WEBHOOK_SECRET).update(`${timestamp}.${body}`).digest('hex');
  return { 'x-fake-timestamp': String(timestamp), 'x-fake-signature': signature };
}

function count(map: Map<string, number>, key: string): number {
  const n = (map.get(key) ?? 0) + 1;
  map.set(key, n);
  return n;
}

function handleJob(handle: JsonValue): string {
  if (typeof handle === 'object' && handle !== null && !Array.isArray(handle) && typeof handle['job'] === 'string') return handle['job'];
  throw new Error(`unexpected handle ${JSON.stringify(handle)}`);
}

/** A provider under the test's control: every behaviour, call and in-flight count is visible. */
export class FakeAdapter implements ProviderAdapter {
  readonly specificationVersion = ADAPTER_SPECIFICATION_VERSION;
  readonly providerId = 'fake';
  readonly models: readonly ModelDescriptor[] = [
    model(MODELS.image, 'image', 'one-shot image: returns PNG bytes'),
    model(MODELS.broken, 'image', 'one-shot image whose generate always fails (invalid input)'),
    model(MODELS.flaky, 'image', 'one-shot image failing with a retryable 503 on its first call only'),
    model(MODELS.limited, 'image', 'one-shot image rate-limited once with Retry-After 1 s'),
    model(MODELS.slow, 'image', 'one-shot image taking slowMs; honours its AbortSignal'),
    model(MODELS.video, 'video', 'long-running video: running twice, then succeeded'),
    model(MODELS.gated, 'video', 'long-running video: running until the gate opens'),
    model(MODELS.flakyVideo, 'video', 'long-running video whose first upstream job fails retryably'),
    model(MODELS.shakyStatus, 'video', 'long-running video whose first status check cannot reach the upstream'),
    model(MODELS.urlImage, 'image', 'one-shot image whose result is a URL (resultUrl) the gateway downloads'),
    model(MODELS.urlVideo, 'video', 'one-shot video whose result is a URL (resultUrl) the gateway downloads'),
    model(MODELS.hooked, 'video', 'long-running video that only a completion webhook ends (status() says running)'),
  ];
  /** Result URL of the url-image model, and its declared media type (null: let the download tell). */
  resultUrl = 'http://127.0.0.1:9/nothing.png';
  resultType: string | null = null;
  trustedOrigins: string[] = [];
  readonly webhookUrls = new Map<string, string | null>();
  readonly generateCalls = new Map<string, number>();
  readonly generateAt = new Map<string, number[]>();
  readonly startCalls = new Map<string, number>();
  readonly statusCalls = new Map<string, number>();
  readonly aborted = new Set<string>();
  /** Why each aborted call was aborted (its AbortSignal's reason). */
  readonly abortReasons = new Map<string, unknown>();
  readonly finishedAt = new Map<string, number>();
  gateOpen = false;
  slowMs = 300;
  inFlight = 0;
  maxInFlight = 0;

  isLongRunning(modelId: string): boolean {
    return LONG_RUNNING.has(modelId);
  }

  pollDelayMs(): number {
    return 20;
  }

  async generate(call: AdapterCall): Promise<GenerationResult> {
    const n = count(this.generateCalls, call.taskId);
    this.generateAt.set(call.taskId, [...(this.generateAt.get(call.taskId) ?? []), Date.now()]);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      if (call.model.id === MODELS.broken) throw new UpstreamError('boom', { kind: 'invalid_input', statusCode: 400, requestId: 'req_broken' });
      if (call.model.id === MODELS.flaky && n === 1) throw new UpstreamError('overloaded', { kind: 'server', statusCode: 503 });
      if (call.model.id === MODELS.limited && n === 1) throw new UpstreamError('slow down', { kind: 'rate_limited', statusCode: 429, retryAfterMs: 1_000 });
      if (call.model.id === MODELS.urlImage || call.model.id === MODELS.urlVideo) {
        return { files: [{ kind: 'url', url: this.resultUrl, ...(this.resultType ? { mediaType: this.resultType } : {}) }] };
      }
      if (call.model.id === MODELS.slow) {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, this.slowMs);
          call.abortSignal.addEventListener('abort', () => {
            clearTimeout(t);
            this.aborted.add(call.taskId);
            this.abortReasons.set(call.taskId, call.abortSignal.reason);
            reject(call.abortSignal.reason as Error);
          });
        });
      }
      this.finishedAt.set(call.taskId, Date.now());
      return { files: [{ kind: 'bytes', data: PNG_BYTES, mediaType: 'image/png' }], metadata: { requestId: `req_${call.taskId.slice(0, 8)}`, finishReason: 'stop' } };
    } finally {
      this.inFlight -= 1;
    }
  }

  /** Every start reports one warning naming its job, so tests see which start's warnings the task kept. */
  async start(call: AdapterCall): Promise<StartedJob> {
    const n = count(this.startCalls, call.taskId);
    this.webhookUrls.set(call.taskId, call.webhookUrl);
    return { handle: { job: `${call.taskId}#${n}`, model: call.model.id }, warnings: [{ param: 'video_params.resolution', message: `start #${n} adjusted it` }] };
  }

  async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
    const job = handleJob(handle);
    const n = count(this.statusCalls, job);
    count(this.statusCalls, call.taskId);
    const done: LongRunningStatus = { state: 'succeeded', result: { files: [{ kind: 'bytes', data: MP4_BYTES, mediaType: 'video/mp4' }], usage: { videoSeconds: call.request.modality === 'video' ? call.request.duration : 0 } } };
    if (call.model.id === MODELS.gated) return this.gateOpen ? done : { state: 'running', progress: 0.5 };
    if (call.model.id === MODELS.hooked) return { state: 'running', progress: 0.1 };
    if (call.model.id === MODELS.flakyVideo && job.endsWith('#1')) return { state: 'failed', error: new UpstreamError('the job crashed upstream', { kind: 'server' }) };
    if (call.model.id === MODELS.shakyStatus && n === 1) throw new UpstreamError('connection reset', { kind: 'network' });
    return n <= 2 ? { state: 'running', progress: n / 3 } : done;
  }
}

/** The fake provider with completion webhooks: HMAC-signed, fresh within five minutes. */
export class FakeHookedAdapter extends FakeAdapter {
  async verifyWebhook(request: WebhookRequest): Promise<void> {
    const ts = Number(request.headers['x-fake-timestamp']);
    if (!Number.isFinite(ts) || Math.abs(Date.now() / 1000 - ts) > 300) throw new WebhookRejected('stale or missing timestamp');
    const body = new TextDecoder().decode(request.rawBody);
    const want = signFakeWebhook(body, ts)['x-fake-signature'] ?? '';
    const got = request.headers['x-fake-signature'] ?? '';
    if (got.length !== want.length || !timingSafeEqual(Buffer.from(got), Buffer.from(want))) throw new WebhookRejected('bad signature');
  }

  readWebhook(payload: JsonValue): WebhookEvent | null {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload) || typeof payload['job'] !== 'string') return null;
    if (payload['state'] === 'done') {
      return { jobId: payload['job'], status: { state: 'succeeded', result: { files: [{ kind: 'bytes', data: MP4_BYTES, mediaType: 'video/mp4' }], usage: { videoSeconds: 5 } } } };
    }
    if (payload['state'] === 'failed') return { jobId: payload['job'], status: { state: 'failed', error: new UpstreamError('the upstream job failed', { kind: 'invalid_input' }) } };
    return null;
  }

  jobIdOf(handle: JsonValue): string {
    return handleJob(handle);
  }
}

export async function waitFor<T>(what: string, fn: () => Promise<T | null>, timeoutMs = 30_000, intervalMs = 10): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== null) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** One "process" on the shared database: pg-boss, stores, use cases, optionally the worker and the task-ended listener. */
export interface HostProcess {
  readonly gengate: Gengate;
  readonly stores: TransactionScope;
  readonly boss: PgBoss;
  stop(): Promise<void>;
}

export interface WorkerHarness {
  readonly db: TestDatabase;
  readonly pool: pg.Pool;
  readonly blobs: MemoryBlobStore;
  startProcess(opts?: { worker?: boolean; core?: Partial<GengateCoreConfig>; workerOptions?: Partial<GenerationWorkerOptions> }): Promise<HostProcess>;
  close(): Promise<void>;
}

export async function openWorkerHarness(adapters: () => readonly ProviderAdapter[]): Promise<WorkerHarness> {
  const db = await createMigratedTestDatabase();
  const { pool, close: closePool } = openPool(db.url, 20);
  await runMigrations(pool, DEFAULT_SCHEMA);
  const blobs = new MemoryBlobStore();
  const processes = new Set<HostProcess>();
  return {
    db,
    pool,
    blobs,
    async startProcess(opts = {}) {
      const boss = await createBoss({ connectionString: db.url, logger });
      const pgStores = createPgStores(pool, boss, { schema: DEFAULT_SCHEMA });
      const gengate = createGengate({
        adapters: adapters(),
        stores: pgStores.stores,
        unitOfWork: pgStores.unitOfWork,
        taskIntake: pgStores.taskIntake,
        taskCompletion: pgStores.taskCompletion,
        blobStore: opts.core?.blobStore ?? blobs,
        resultUrls: { urlFor: (key) => `http://127.0.0.1:9/api/v1/files/${key}` },
        paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
        logger,
        ...opts.core,
      });
      const worker: GenerationWorker | null = opts.worker === false ? null : await startGenerationWorker(boss, gengate, { logger, ...opts.workerOptions });
      const listener = opts.worker === false ? null : await startWorkerNotifications(db.url, { gengate, boss }, logger);
      const proc: HostProcess = {
        gengate,
        stores: pgStores.stores,
        boss,
        async stop() {
          processes.delete(proc);
          await worker?.stop({ graceMs: 0 });
          await listener?.stop();
          await boss.stop({ graceful: true, timeout: 5_000 });
        },
      };
      processes.add(proc);
      return proc;
    },
    async close() {
      for (const p of [...processes]) await p.stop();
      await closePool();
      await db.drop();
    },
  };
}

export async function newCaller(gengate: Gengate, credits = 1_000): Promise<AuthContext> {
  const { api_key } = await gengate.admin.createUser({ email: `worker-${randomBytes(5).toString('hex')}@example.com`, credits });
  const { userId, apiKeyId } = await gengate.authenticate.execute(api_key, '127.0.0.1');
  return { userId, apiKeyId };
}

export async function ended(stores: TransactionScope, taskId: string, timeoutMs = 30_000): Promise<TaskRecord> {
  return waitFor(
    `task ${taskId} to end`,
    async () => {
      const t = await stores.tasks.findById(taskId);
      return t && (t.status === 'success' || t.status === 'fail') ? t : null;
    },
    timeoutMs,
  );
}

export async function usageFor(stores: TransactionScope, userId: string, taskId: string) {
  const page = await stores.ledger.listTransactions(userId, 1, 100);
  return page.items.filter((t) => t.taskId === taskId && t.paymentMethod === 'usage');
}

export async function expectBalanceInvariant(stores: TransactionScope, userId: string): Promise<void> {
  const page = await stores.ledger.listTransactions(userId, 1, 100);
  const sum = page.items.filter((t) => t.status === 'completed').reduce((s, t) => s + t.creditsMicro, 0);
  expect((await stores.ledger.getBalance(userId)).balanceMicro).toBe(sum);
}
