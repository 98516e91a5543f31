import { checkStep, type ModelDescriptor, type RunRequest } from '@gengate/core/adapter';
import { describeAdapterConformance, kitCall, runAdapterCall } from '@gengate/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LumaAdapter } from '../src/luma-adapter.js';
import { FakeLuma } from './fake-luma.js';

const KEY = 'luma-test-key-0123456789abcdef';
const fake = await FakeLuma.start(KEY);
afterAll(() => fake.close());

const adapter = () => new LumaAdapter({ apiKey: KEY, baseURL: fake.url, poll: { firstMs: 20, maxMs: 50 } });
const model = (id: string): ModelDescriptor => {
  const m = adapter().models.find((x) => x.id === id);
  if (!m) throw new Error(id);
  return m;
};
const call = (id: string, request: RunRequest) => kitCall(model(id), request, AbortSignal.timeout(10_000));

// The whole adapter conformance suite, against the fake: catalog, prices, calls, resume from a saved handle,
// abort, cancel, error classes and Retry-After, and every accepted parameter reaching the upstream request.
describeAdapterConformance('Luma Dream Machine (example)', {
  adapter,
  upstream: fake.upstream,
  credential: KEY,
  cancelsSeen: () => fake.jobs.cancelRequests,
  timeoutMs: 10_000,
});

describe('Luma adapter, against the fake Luma API', () => {
  beforeEach(() => {
    fake.upstream.reset();
    fake.jobs.reset();
  });

  it('creates a generation with the Bearer key, polls GET /generations/{id} and returns the video URL', async () => {
    const result = await runAdapterCall(adapter(), call('luma.ray-2', { prompt: 'a paper boat', video_params: { duration: 9, resolution: '1080p', aspect_ratio: '9:16' }, provider_params: { loop: true } }), 10_000);
    expect(result.files).toEqual([{ kind: 'url', url: expect.stringMatching(/\/files\/[0-9a-f-]+\.mp4$/), mediaType: 'video/mp4' }]);
    const [create, ...polls] = fake.upstream.calls;
    expect(create).toMatchObject({ method: 'POST', path: '/dream-machine/v1/generations', body: { prompt: 'a paper boat', model: 'ray-2', resolution: '1080p', duration: '9s', aspect_ratio: '9:16', loop: true } });
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) expect(p).toMatchObject({ method: 'GET', path: expect.stringMatching(/^\/dream-machine\/v1\/generations\/[0-9a-f-]{36}$/) });
    expect(fake.upstream.calls.every((c) => c.credential === `Bearer ${KEY}`)).toBe(true);
  });

  it('sends a first frame as keyframes.frame0 by its URL (Luma fetches it), and starts with { handle, warnings }', async () => {
    const started = await adapter().start(call('luma.ray-flash-2', { prompt: 'p', video_params: { image_urls: ['https://img.example/first.png'] } }));
    expect(started).toEqual({ handle: { lumaGeneration: expect.any(String) }, warnings: [] });
    expect(fake.upstream.calls[0]?.body).toMatchObject({ model: 'ray-flash-2', keyframes: { frame0: { type: 'image', url: 'https://img.example/first.png' } } });
  });

  it('fails a generation Luma failed for moderation as content_policy, not retryable; other failures as retryable', async () => {
    fake.jobs.failNextJobs({ message: 'Prompt failed moderation' });
    await expect(runAdapterCall(adapter(), call('luma.ray-2', { prompt: 'p' }), 10_000)).rejects.toMatchObject({ kind: 'content_policy', isRetryable: false });
    fake.jobs.failNextJobs({ message: 'internal error' });
    await expect(runAdapterCall(adapter(), call('luma.ray-2', { prompt: 'p' }), 10_000)).rejects.toMatchObject({ kind: 'server', isRetryable: true });
  });

  it('reads a handle it did not write as not_found, before any upstream call', async () => {
    await expect(checkStep(adapter(), { other: 1 }, call('luma.ray-2', { prompt: 'p' }))).rejects.toMatchObject({ kind: 'not_found' });
    expect(fake.upstream.calls).toHaveLength(0);
  });

  it('is written against the public API: its code imports only @gengate/core/adapter (the entry for adapter authors), the adapter kit, zod and its own files', () => {
    const src = join(import.meta.dirname, '..', 'src');
    const imports = readdirSync(src).flatMap((f) => [...readFileSync(join(src, f), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]));
    expect(imports.filter((i) => !['@gengate/core/adapter', '@gengate/adapters/kit', 'zod'].includes(i ?? '') && !i?.startsWith('./'))).toEqual([]);
  });
});
