import { FakeFal, FakeReplicate, FakeRunway, FakeVeo, type FakeJobBook } from '@gengate/testing';
import { createTestDatabase, describeHttpApiConformance, type TestDatabase } from '@gengate/testing/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { videoProvidersFromEnv } from '../src/server/video-providers.js';
import { FAKE_KEYS, startProviderFakes, type ProviderFakes } from './support/provider-fakes.js';
import { runCli, spawnServer, tempDataDir, waitFor, type SpawnedServer } from './support/spawn-server.js';

/**
 * The standalone host (`gengate serve`, a child process) with the four video providers configured through
 * its environment against their fakes (and the chat and image providers against theirs): a video task per
 * provider goes waiting -> generating -> success and gengate serves the MP4 itself; the black-box HTTP
 * conformance suite passes with a real provider's video, image and chat models. PUBLIC_URL is set (the
 * contract proxy), so fal and Replicate report completion by webhook; Runway and Veo are polled.
 */
const VIDEO_KEYS = {
  FAL_KEY: 'fal-e2e-key-0123456789',
  REPLICATE_API_TOKEN: 'r8_e2etoken0123456789',
  RUNWAYML_API_SECRET: 'key_runway_e2e_0123456789',
} as const;

let db: TestDatabase;
let providerFakes: ProviderFakes;
const video: { fal?: FakeFal; replicate?: FakeReplicate; runway?: FakeRunway; veo?: FakeVeo } = {};
let server: SpawnedServer;
let env: NodeJS.ProcessEnv;
let key: string;
let users = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  providerFakes = await startProviderFakes();
  [video.fal, video.replicate, video.runway, video.veo] = await Promise.all([
    FakeFal.start({ durationMs: 400 }),
    FakeReplicate.start({ durationMs: 400 }),
    FakeRunway.start({ durationMs: 400 }),
    FakeVeo.start({ durationMs: 400 }),
  ]);
  env = {
    DATABASE_URL: db.url,
    GENGATE_DATA_DIR: tempDataDir(),
    ...providerFakes.env,
    ...VIDEO_KEYS,
    FAL_BASE_URL: video.fal.runUrl,
    FAL_QUEUE_URL: video.fal.queueUrl,
    FAL_JWKS_URL: video.fal.jwksUrl,
    REPLICATE_BASE_URL: video.replicate.baseUrl,
    REPLICATE_WEBHOOK_SECRET: video.replicate.webhookSecret,
    RUNWAY_BASE_URL: video.runway.url,
    // One `google` provider serves Gemini and Veo from one base URL: here the Veo fake (Gemini is covered by providers-e2e).
    GOOGLE_BASE_URL: video.veo.baseUrl,
  };
  server = await spawnServer(env);
  key = (JSON.parse(await runCli(['users', 'create', '--email', 'video-e2e@example.com', '--credits', '100000'], env)) as { api_key: string }).api_key;
});

afterAll(async () => {
  for (const f of [video.fal, video.replicate, video.runway, video.veo]) f?.jobs.release();
  await server?.stop();
  await Promise.all([video.fal?.close(), video.replicate?.close(), video.runway?.close(), video.veo?.close(), providerFakes?.close()]);
  await db?.drop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

interface TaskBody {
  status: string;
  result_urls: string[];
  error_message: string | null;
}

const CASES: readonly { model: string; jobs: () => FakeJobBook; body: object }[] = [
  { model: 'fal.veo3-fast', jobs: () => video.fal!.jobs, body: { prompt: 'a lighthouse at dusk', video_params: { duration: 4 } } },
  { model: 'replicate.hailuo-02', jobs: () => video.replicate!.jobs, body: { prompt: 'a lighthouse at dusk', video_params: { duration: 6 } } },
  { model: 'runway.gen4.5', jobs: () => video.runway!.jobs, body: { prompt: 'a lighthouse at dusk', video_params: { duration: 2 } } },
  { model: 'google.veo-3-fast', jobs: () => video.veo!.jobs, body: { prompt: 'a lighthouse at dusk' } },
];

describe('video providers through the standalone host (spawned gengate serve, fakes)', () => {
  it('starts with the four video providers active and prints none of their keys', async () => {
    const logged = await server.loggedOutput();
    for (const provider of ['fal', 'replicate', 'runway', 'google']) expect(logged).toContain(`provider ${provider} is active`);
    for (const secret of [...Object.values(VIDEO_KEYS), FAKE_KEYS.GOOGLE_GENERATIVE_AI_API_KEY, video.replicate?.webhookSecret ?? '']) expect(logged).not.toContain(secret);
  });

  // One fake per case, so the cases run at once (Veo's first status check comes after 10 s, Runway's after 5 s).
  it.concurrent.for(CASES)('$model runs from waiting through generating to success with an MP4 served by gengate', { timeout: 60_000 }, async (c, { expect }) => {
    const jobs = c.jobs();
    const submissions = jobs.submissions;
    // The fake keeps the upstream job running until released: the task is seen generating whatever the machine's speed.
    jobs.hold();
    const seen: string[] = [];
    const poll = async () => {
      const t = (await (await api(`/run/tasks/${taskId}`)).json()) as TaskBody;
      if (seen.at(-1) !== t.status) seen.push(t.status);
      return t;
    };
    const res = await api(`/run/${c.model}`, { method: 'POST', body: JSON.stringify(c.body) });
    const submitted = (await res.json()) as { task_id: string; status: string };
    expect(res.status, JSON.stringify(submitted)).toBe(200);
    expect(submitted.status).toBe('waiting');
    seen.push('waiting');
    const taskId = submitted.task_id;
    try {
      await waitFor(async () => ((await poll()).status === 'generating' && jobs.submissions > submissions ? true : null), {
        timeoutMs: 30_000,
        intervalMs: 50,
        what: `${c.model} task to be generating with its upstream job submitted`,
      });
    } finally {
      jobs.release();
    }
    const task = await waitFor(async () => {
      const t = await poll();
      return t.status === 'success' || t.status === 'fail' ? t : null;
    }, { timeoutMs: 45_000, intervalMs: 50, what: `${c.model} task to end` });
    expect(task.status, JSON.stringify(task)).toBe('success');
    expect(seen).toEqual(['waiting', 'generating', 'success']);
    expect(jobs.submissions).toBe(submissions + 1);
    expect(task.result_urls).toHaveLength(1);
    const url = task.result_urls[0] ?? '';
    expect(url.startsWith(`${server.url}/api/v1/files/${taskId}/`)).toBe(true);
    const file = await fetch(url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toContain('video/mp4');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('reports a problem for an invalid setting without echoing its value, and lists unconfigured providers as unavailable', () => {
    const { adapters, problems, secrets } = videoProvidersFromEnv({ FAL_KEY: 'k-123456', FAL_QUEUE_URL: 'ftp://nope.example', REPLICATE_WEBHOOK_SECRET: 'not-a-secret' });
    expect(problems).toHaveLength(2);
    expect(problems.join(' ')).toMatch(/FAL_QUEUE_URL/);
    expect(problems.join(' ')).toMatch(/REPLICATE_WEBHOOK_SECRET/);
    expect(problems.join(' ')).not.toMatch(/nope\.example|not-a-secret/);
    expect(adapters.map((a) => a.availability)).toEqual([
      expect.objectContaining({ available: false, settings: ['FAL_KEY'] }),
      expect.objectContaining({ available: false, settings: ['REPLICATE_API_TOKEN'] }),
      expect.objectContaining({ available: false, settings: ['RUNWAYML_API_SECRET'] }),
      expect.objectContaining({ available: false, settings: ['GOOGLE_GENERATIVE_AI_API_KEY'] }),
    ]);
    expect(secrets).toEqual([]);
    expect(videoProvidersFromEnv({ FAL_KEY: 'k-123456', RUNWAYML_API_SECRET: 'r-123456' }).secrets).toEqual(['k-123456', 'r-123456']);
  });
});

// The black-box suite against this host, every model a real provider's (fakes behind them): Kling on fal's
// queue for video (5 s, as the suite asks), FLUX on fal for images, Claude for chat, a refusing model to fail.
describeHttpApiConformance('gengate standalone server with the video providers (fakes)', {
  apiUrl: () => `${server.url}/api/v1`,
  async createUser(credits) {
    const out = await runCli(['users', 'create', '--email', `video-conformance${++users}@example.com`, '--credits', String(credits)], env);
    return { apiKey: (JSON.parse(out) as { api_key: string }).api_key };
  },
  models: { chat: 'anthropic.claude-haiku-4-5', image: 'fal.flux-schnell', video: 'fal.kling-v2.1-master', failing: 'fakecompat.always-refuse' },
  taskTimeoutMs: 30_000,
});
