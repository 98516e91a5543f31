import {
  ADAPTER_SPECIFICATION_VERSION,
  type AdapterCall,
  type GenerationResult,
  type JsonValue,
  type LongRunningStatus,
  type ModelDescriptor,
  type ProviderAdapter,
  type StartedJob,
  UpstreamError,
} from '@gengate/core/adapter';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeUpstream, type RecordedCall } from '../../fakes/fake-upstream.js';
import { FakeJobBook } from '../../fakes/video/fake-jobs.js';
import { minimalRequest } from './adapter-requests.js';
import { checkCancel, checkResume, type LifecycleCheckOptions } from './lifecycle-checks.js';

// Planted bugs against the conformance suite's resume and cancel checks: a tiny long-running upstream
// (submit, status, cancel) and adapters that are right, lack cancel(), or cancel nothing. Each broken
// adapter must make the check fail (or, where the check does not apply, report a skip with its reason).

const jobs = new FakeJobBook(async () => null, { durationMs: 40 });
const JOB = /^\/jobs\/([0-9a-f-]{36})(\/cancel)?$/;
const jobOf = (c: RecordedCall) => jobs.jobs.get(JOB.exec(c.path)?.[1] ?? '');
const upstream = await FakeUpstream.start([
  { method: 'POST', path: '/jobs', handler: () => ({ status: 201, body: { id: jobs.submit({ model: 'm', input: null, webhookUrl: null }).id } }) },
  {
    method: 'GET',
    path: JOB,
    handler: (c) => {
      const job = jobOf(c);
      return job ? { body: { status: jobs.phase(job) } } : { status: 404, body: { error: 'no such job' } };
    },
  },
  {
    method: 'POST',
    path: JOB,
    handler: (c) => {
      const job = jobOf(c);
      if (!job) return { status: 404, body: { error: 'no such job' } };
      jobs.cancel(job);
      return { status: 202, body: {} };
    },
  },
]);
afterAll(async () => {
  jobs.close();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const VIDEO: ModelDescriptor = {
  id: 'planted.video',
  provider: 'planted',
  name: 'Planted video',
  modality: 'video',
  description: 'A long-running model against the tiny upstream.',
  tags: [],
  isPopular: false,
  isActive: true,
  capabilities: {
    modality: 'video',
    promptRequired: true,
    durations: [5],
    resolutions: ['720p'],
    aspectRatios: ['16:9'],
    maxReferenceImages: 0,
    maxReferenceVideos: 0,
    supportsWatermark: false,
    supportsMultiShots: false,
    supportsTranslation: false,
  },
  pricing: { kind: 'per_second', perSecond: { '720p': 1_000 } },
};
const IMAGE: ModelDescriptor = {
  ...VIDEO,
  id: 'planted.image',
  name: 'Planted image',
  modality: 'image',
  capabilities: {
    modality: 'image',
    promptRequired: true,
    aspectRatios: ['1:1'],
    sizes: { kind: 'range', minSide: 16, maxSide: 64, defaultLongSide: 32 },
    supportsNegativePrompt: false,
    supportsSeed: false,
    maxReferenceImages: 0,
  },
  pricing: { kind: 'per_image', perImage: 1_000 },
};
const PNG = new Uint8Array([137, 80, 78, 71]);

/** A long-running adapter against the tiny upstream; `cancelMode` plants the bug. */
function longRunning(cancelMode: 'right' | 'deleted' | 'no-op'): ProviderAdapter {
  const post = async (path: string, signal: AbortSignal) => {
    const res = await fetch(`${upstream.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', signal });
    return (await res.json()) as { id?: string };
  };
  const adapter: ProviderAdapter = {
    specificationVersion: ADAPTER_SPECIFICATION_VERSION,
    providerId: 'planted',
    models: [VIDEO],
    isLongRunning: () => true,
    async start(call: AdapterCall): Promise<StartedJob> {
      return { handle: { job: (await post('/jobs', call.abortSignal)).id ?? '' }, warnings: [] };
    },
    async status(handle: JsonValue, call: AdapterCall): Promise<LongRunningStatus> {
      const id = (handle as { job: string }).job;
      const res = await fetch(`${upstream.url}/jobs/${id}`, { signal: call.abortSignal });
      const { status } = (await res.json()) as { status: string };
      if (status !== 'succeeded') return { state: 'running' };
      return { state: 'succeeded', result: { files: [{ kind: 'bytes', data: PNG, mediaType: 'video/mp4' }] } };
    },
  };
  if (cancelMode === 'right') {
    return { ...adapter, cancel: async (handle, call) => void (await post(`/jobs/${(handle as { job: string }).job}/cancel`, call.abortSignal)) };
  }
  if (cancelMode === 'no-op') return { ...adapter, cancel: async () => undefined };
  return adapter;
}

const oneShot = (): ProviderAdapter => ({
  specificationVersion: ADAPTER_SPECIFICATION_VERSION,
  providerId: 'planted',
  models: [IMAGE],
  isLongRunning: () => false,
  generate: async (): Promise<GenerationResult> => ({ files: [{ kind: 'bytes', data: PNG, mediaType: 'image/png' }] }),
});

const options = (adapter: () => ProviderAdapter, over: Partial<LifecycleCheckOptions> = {}): LifecycleCheckOptions => ({
  adapter,
  requestFor: minimalRequest,
  failing: new Set(),
  timeoutMs: 5_000,
  maxPollDelayMs: 10,
  upstream,
  cancelsSeen: null,
  cancelUnsupported: null,
  expectFiles: (m, r) => expect(r.files.length, m.id).toBeGreaterThan(0),
  ...over,
});
const counted = { cancelsSeen: () => jobs.cancelRequests };

describe('adapter conformance: planted cancel and resume bugs', () => {
  it('a right cancel passes, both with the cancelsSeen hook and by the recorded upstream calls', async () => {
    await expect(checkCancel(options(() => longRunning('right'), counted))).resolves.toEqual({ kind: 'passed' });
    await expect(checkCancel(options(() => longRunning('right')))).resolves.toEqual({ kind: 'passed' });
    expect(upstream.callsTo('POST', /\/cancel$/).length).toBeGreaterThan(0);
  });

  it('a no-op cancel fails: the upstream counted no cancel request', async () => {
    await expect(checkCancel(options(() => longRunning('no-op'), counted))).rejects.toThrow(/cancel\(\) resolved but the upstream counted no cancel request/);
  });

  it('a no-op cancel fails without the hook too: no cancel request reached the fake upstream', async () => {
    await expect(checkCancel(options(() => longRunning('no-op')))).rejects.toThrow(/no cancel request reached the upstream \(saw: nothing\)/);
  });

  it('a deleted cancel fails when the author said the upstream can cancel (cancelsSeen)', async () => {
    await expect(checkCancel(options(() => longRunning('deleted'), counted))).rejects.toThrow(/the adapter has no cancel\(\)/);
  });

  it('a deleted cancel without the hook is skipped with a visible warning, or a plain reason when the provider cannot cancel', async () => {
    const warned = await checkCancel(options(() => longRunning('deleted')));
    expect(warned).toMatchObject({ kind: 'skipped', warning: true, reason: expect.stringMatching(/^WARNING: long-running models \(planted\.video\) and no cancel\(\)/) });
    const declared = await checkCancel(options(() => longRunning('deleted'), { cancelUnsupported: 'no cancel endpoint' }));
    expect(declared).toEqual({ kind: 'skipped', warning: false, reason: 'the upstream cannot cancel: no cancel endpoint' });
  });

  it('a one-shot adapter skips resume and cancel with the reason, instead of passing them', async () => {
    expect(await checkResume(options(oneShot))).toMatchObject({ kind: 'skipped', warning: false, reason: expect.stringMatching(/^no long-running model/) });
    expect(await checkCancel(options(oneShot))).toMatchObject({ kind: 'skipped', warning: false, reason: expect.stringMatching(/^no long-running model/) });
  });

  it('resume passes for a long-running adapter and fails when the saved handle cannot be resumed', async () => {
    await expect(checkResume(options(() => longRunning('right')))).resolves.toEqual({ kind: 'passed' });
    const amnesiac = (): ProviderAdapter => {
      const a = longRunning('right');
      return { ...a, status: async () => ({ state: 'failed', error: new UpstreamError('handle not understood', { kind: 'invalid_input' }) }) };
    };
    await expect(checkResume(options(amnesiac))).rejects.toThrow(/handle not understood/);
  });
});
