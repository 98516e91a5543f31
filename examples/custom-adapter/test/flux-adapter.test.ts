import { normalizeRunRequest, type ModelDescriptor, type RunRequest } from '@gengate/core/adapter';
import { describeAdapterConformance, kitCall, runAdapterCall } from '@gengate/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { FluxAdapter } from '../src/flux-adapter.js';
import { FakeBfl } from './fake-bfl.js';

const KEY = 'bfl_test_key_0123456789abcdef';
const fake = await FakeBfl.start({ apiKey: KEY, durationMs: 60 });
afterAll(() => fake.close());

const adapter = () => new FluxAdapter({ apiKey: KEY, baseURL: fake.url });
const model = (id: string): ModelDescriptor => {
  const m = adapter().models.find((x) => x.id === id);
  if (!m) throw new Error(id);
  return m;
};
const run = (id: string, request: RunRequest) => runAdapterCall(adapter(), kitCall(model(id), request, AbortSignal.timeout(10_000)), 10_000);

// The whole adapter conformance suite, against the fake: catalog, prices, calls, resume from a saved handle,
// abort, error classes and Retry-After, and every accepted parameter reaching the upstream request.
describeAdapterConformance('Black Forest Labs (example)', {
  adapter,
  upstream: fake.upstream,
  credential: KEY,
  timeoutMs: 10_000,
  cancelUnsupported: 'the BFL API documents no way to cancel a submitted request',
});

describe('Black Forest Labs adapter, against the fake BFL API', () => {
  beforeEach(() => fake.upstream.reset());

  it('submits to POST /v1/{model} with x-key, polls the polling_url and returns the signed result URL', async () => {
    const result = await run('bfl.flux-pro-1.1', { prompt: 'a lighthouse', image_params: { aspect_ratio: '16:9', seed: 7 }, provider_params: { output_format: 'png' } });
    expect(result.files).toEqual([{ kind: 'url', url: expect.stringMatching(/\/delivery\/[0-9a-f-]+\.png$/), mediaType: 'image/png' }]);
    const [submit, ...polls] = fake.upstream.calls;
    expect(submit).toMatchObject({ method: 'POST', path: '/v1/flux-pro-1.1', body: { prompt: 'a lighthouse', width: 1024, height: 576, seed: 7, output_format: 'png' } });
    expect(polls.length).toBeGreaterThan(0);
    for (const p of polls) expect(p).toMatchObject({ method: 'GET', path: '/v1/get_result' });
    expect(fake.upstream.calls.every((c) => c.credential === KEY)).toBe(true);
  });

  it('sends a FLUX1.1 [pro] image prompt as base64 bytes read through the host, and a Kontext reference as its URL', async () => {
    await run('bfl.flux-pro-1.1', { prompt: 'p', image_params: { image_urls: ['https://img.example/ref.png'] } });
    expect(typeof (fake.upstream.calls[0]?.body as { image_prompt?: unknown }).image_prompt).toBe('string');
    fake.upstream.reset();
    await run('bfl.flux-kontext-pro', { prompt: 'p', image_params: { image_urls: ['https://img.example/ref.png'], aspect_ratio: '21:9' } });
    expect(fake.upstream.calls[0]?.body).toMatchObject({ input_image: 'https://img.example/ref.png', aspect_ratio: '21:9' });
  });

  it('reports width and height on Kontext as a warning: it renders about one megapixel at the ratio', async () => {
    const result = await run('bfl.flux-kontext-pro', { prompt: 'p', image_params: { width: 512, height: 512 } });
    expect(result.warnings?.map((w) => w.param)).toEqual(['image_params.width']);
  });

  it.each([
    ['Content Moderated', 'content_policy', false],
    ['Request Moderated', 'content_policy', false],
    ['Error', 'server', true],
  ] as const)('a task ending %s fails as %s (retryable: %s)', async (status, kind, retryable) => {
    fake.endNextWith(status);
    await expect(run('bfl.flux-pro-1.1', { prompt: 'p' })).rejects.toMatchObject({ kind, isRetryable: retryable });
  });

  it('refuses an unknown or out-of-range BFL parameter before any call', () => {
    expect(() => normalizeRunRequest(model('bfl.flux-pro-1.1'), { prompt: 'p', provider_params: { safety_tolerance: 9 } })).toThrow();
    expect(fake.upstream.calls).toHaveLength(0);
  });

  it('is written against the public API: its code imports only @gengate/core/adapter (the entry for adapter authors), the adapter kit, zod and its own files', () => {
    const src = join(import.meta.dirname, '..', 'src');
    const imports = readdirSync(src).flatMap((f) => [...readFileSync(join(src, f), 'utf8').matchAll(/from '([^']+)'/g)].map((m) => m[1]));
    expect(imports.filter((i) => !['@gengate/core/adapter', '@gengate/adapters/kit', 'zod'].includes(i ?? '') && !i?.startsWith('./'))).toEqual([]);
  });
});
