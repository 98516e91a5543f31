import { createTestDatabase, FakeFal, FakeReplicate, FakeRunway, FakeVeo, type TestDatabase } from '@gengate/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/server/config.js';
import { startServer, type RunningServer } from '../src/server/start-server.js';
import { videoProvidersFromEnv } from '../src/server/video-providers.js';
import { tempDataDir, waitFor } from './support/spawn-server.js';

/**
 * The standalone host with the four video providers configured from the environment against their fakes:
 * a video task per provider goes waiting -> generating -> success and gengate serves the MP4 itself.
 */
describe('video providers through the standalone host (fakes)', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let key: string;
  const fakes: { fal?: FakeFal; replicate?: FakeReplicate; runway?: FakeRunway; veo?: FakeVeo } = {};

  beforeAll(async () => {
    db = await createTestDatabase();
    fakes.fal = await FakeFal.start({ durationMs: 400 });
    fakes.replicate = await FakeReplicate.start({ durationMs: 400 });
    fakes.runway = await FakeRunway.start({ durationMs: 400 });
    fakes.veo = await FakeVeo.start({ durationMs: 400 });
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: db.url,
      GENGATE_DATA_DIR: tempDataDir(),
      PORT: '0',
      FAL_KEY: 'fal-e2e-key-0123456789',
      FAL_BASE_URL: fakes.fal.runUrl,
      FAL_QUEUE_URL: fakes.fal.queueUrl,
      FAL_JWKS_URL: fakes.fal.jwksUrl,
      REPLICATE_API_TOKEN: 'r8_e2etoken0123456789',
      REPLICATE_BASE_URL: fakes.replicate.baseUrl,
      REPLICATE_WEBHOOK_SECRET: fakes.replicate.webhookSecret,
      RUNWAYML_API_SECRET: 'key_runway_e2e_0123456789',
      RUNWAY_BASE_URL: fakes.runway.url,
      GOOGLE_GENERATIVE_AI_API_KEY: 'AIzaE2eVeoKey0123456789abcdef',
      GOOGLE_BASE_URL: fakes.veo.baseUrl,
    };
    const providers = videoProvidersFromEnv(env);
    expect(providers.problems).toEqual([]);
    expect(providers.adapters.map((a) => [a.providerId, a.availability?.available])).toEqual([
      ['fal', true],
      ['replicate', true],
      ['runway', true],
      ['google', true],
    ]);
    server = await startServer(loadConfig(env), { logger: pino({ level: 'silent' }), adapters: providers.adapters });
    key = (await server.gengate.admin.createUser({ email: 'video-e2e@example.com', credits: 100_000 })).api_key;
  });

  afterAll(async () => {
    await server?.close();
    await Promise.all([fakes.fal?.close(), fakes.replicate?.close(), fakes.runway?.close(), fakes.veo?.close()]);
    await db?.drop();
  });

  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...init.headers } });

  it.each([
    ['fal.veo3-fast', { prompt: 'a lighthouse at dusk', video_params: { duration: 4 } }],
    ['replicate.hailuo-02', { prompt: 'a lighthouse at dusk', video_params: { duration: 6 } }],
    ['runway.gen4.5', { prompt: 'a lighthouse at dusk', video_params: { duration: 2 } }],
    ['google.veo-3-fast', { prompt: 'a lighthouse at dusk' }],
  ])('%s runs from waiting through generating to success with an MP4 served by gengate', async (model, body) => {
    const res = await api(`/run/${model}`, { method: 'POST', body: JSON.stringify(body) });
    const submitted = (await res.json()) as { task_id: string; status: string };
    expect(res.status).toBe(200);
    expect(submitted.status).toBe('waiting');
    const seen = new Set<string>(['waiting']);
    const task = await waitFor(
      async () => {
        const t = (await (await api(`/run/tasks/${submitted.task_id}`)).json()) as { status: string; result_urls: string[]; error_message: string | null };
        seen.add(t.status);
        return t.status === 'success' || t.status === 'fail' ? t : null;
      },
      { timeoutMs: 45_000, intervalMs: 50, what: `${model} task to end` },
    );
    expect(task.status, JSON.stringify(task)).toBe('success');
    expect([...seen]).toEqual(['waiting', 'generating', 'success'].filter((s) => seen.has(s)));
    expect(seen.has('generating')).toBe(true);
    const url = task.result_urls[0] ?? '';
    expect(url.startsWith(`${server.url}/api/v1/files/${submitted.task_id}/`)).toBe(true);
    const file = await fetch(url);
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
