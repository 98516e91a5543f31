import type { LanguageModelV4 } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { ADAPTER_SPECIFICATION_VERSION, type AdapterCall, type ProviderAdapter } from '../ports/provider-adapter.js';
import type { ModelDescriptor } from '../model/model.js';
import { composeAdapters } from './compose-adapters.js';
import { ModelRegistry } from './model-registry.js';

const chatModel: ModelDescriptor = {
  id: 'p.chat', name: 'chat', provider: 'p', modality: 'chat', description: 'd', tags: [], isPopular: false, isActive: true,
  capabilities: { modality: 'chat', promptRequired: true, maxOutputTokens: 10, defaultMaxTokens: 5, temperature: null, supportsTopP: false, supportsSystem: false },
  pricing: { kind: 'per_token', inputPerMillionTokens: 1, outputPerMillionTokens: 1 },
};
const videoModel: ModelDescriptor = {
  ...chatModel, id: 'p.video', modality: 'video',
  capabilities: { modality: 'video', promptRequired: true, durations: [5], resolutions: ['720p'], aspectRatios: ['16:9'], maxReferenceImages: 0, maxReferenceVideos: 0, supportsWatermark: false, supportsMultiShots: false, supportsTranslation: false },
  pricing: { kind: 'per_second', perSecond: { '720p': 1 } },
};
const calls: string[] = [];
const oneShot: ProviderAdapter = {
  specificationVersion: ADAPTER_SPECIFICATION_VERSION, providerId: 'p', models: [chatModel], trustedOrigins: ['http://a'], isLongRunning: () => false,
  generate: async (c) => (calls.push(`generate ${c.model.id}`), { files: [] }),
};
const longRunning: ProviderAdapter = {
  specificationVersion: ADAPTER_SPECIFICATION_VERSION, providerId: 'p', models: [videoModel], trustedOrigins: ['http://b'], isLongRunning: () => true,
  availability: { available: false, reason: 'set P_KEY', settings: ['P_KEY'] },
  start: async (c) => (calls.push(`start ${c.model.id}`), { handle: 'h', warnings: [] }),
  status: async () => ({ state: 'running' }),
  pollDelayMs: () => 1234,
};

describe('composeAdapters', () => {
  it('routes each call to the adapter that declares the model and merges what the catalog sees', async () => {
    const p = composeAdapters([oneShot, longRunning]);
    expect(p.models.map((m) => m.id)).toEqual(['p.chat', 'p.video']);
    expect(p.trustedOrigins).toEqual(['http://a', 'http://b']);
    expect(p.availability).toEqual({ available: false, reason: 'set P_KEY', settings: ['P_KEY'] });
    expect([p.isLongRunning('p.chat'), p.isLongRunning('p.video')]).toEqual([false, true]);
    const call = (model: ModelDescriptor) => ({ model }) as unknown as AdapterCall;
    await p.generate?.(call(chatModel));
    await p.start?.(call(videoModel));
    expect(calls).toEqual(['generate p.chat', 'start p.video']);
    expect(p.pollDelayMs?.(1, videoModel)).toBe(1234);
    expect(p.pollDelayMs?.(1, chatModel)).toBe(2_000);
    expect(() => new ModelRegistry([p])).not.toThrow();
    expect(() => composeAdapters([oneShot, { ...longRunning, providerId: 'q' }])).toThrow(/cannot compose q with p/);
  });

  it("hands a language model request, with the dialect's preference, to the part that declares the model", () => {
    const asked: unknown[] = [];
    const streaming: ProviderAdapter = { ...oneShot, languageModel: (id, preference) => (asked.push([id, preference]), {} as LanguageModelV4) };
    composeAdapters([streaming, longRunning]).languageModel?.('p.chat', { wire: 'responses' });
    expect(asked).toEqual([['p.chat', { wire: 'responses' }]]);
  });
});
