import { describe, expect, it } from 'vitest';
import type { ModelDescriptor } from '../model/model.js';
import { actualCost, quoteRun } from './quote.js';
import { toPricingView } from './pricing-view.js';

const base = { name: 'm', provider: 'p', description: '', tags: [], isPopular: false, isActive: true } as const;
const chat: ModelDescriptor = {
  ...base,
  id: 'p.chat',
  modality: 'chat',
  capabilities: { modality: 'chat', promptRequired: true, maxOutputTokens: 1000, defaultMaxTokens: 100, supportsTopP: true },
  pricing: { kind: 'per_token', inputPerMillionTokens: 15_000_000, outputPerMillionTokens: 60_000_000 },
};

describe('quote and actual cost', () => {
  it('holds the chat worst case and charges the reported tokens, rounded up, never above the hold', () => {
    const req = { modality: 'chat', prompt: 'héllo', temperature: null, maxTokens: 100, topP: null } as const;
    const quoted = quoteRun(chat, req);
    // 6 UTF-8 bytes * 15 + 100 * 60 micro-credits per token
    expect(quoted).toBe(6 * 15 + 100 * 60);
    expect(actualCost(chat, req, quoted, { inputTokens: 3, outputTokens: 7 })).toBe(3 * 15 + 7 * 60);
    expect(actualCost(chat, req, quoted, { inputTokens: 10_000, outputTokens: 10_000 })).toBe(quoted);
  });

  it('rounds sub-micro token costs up (integer arithmetic, no float drift)', () => {
    const cheap: ModelDescriptor = { ...chat, pricing: { kind: 'per_token', inputPerMillionTokens: 1, outputPerMillionTokens: 3 } };
    const req = { modality: 'chat', prompt: 'a', temperature: null, maxTokens: 1, topP: null } as const;
    expect(actualCost(cheap, req, 10, { inputTokens: 1, outputTokens: 1 })).toBe(2);
  });

  it('prices video per second and resolution, images per size band', () => {
    const video: ModelDescriptor = {
      ...base,
      id: 'p.video',
      modality: 'video',
      capabilities: {
        modality: 'video', promptRequired: true, durations: [5, 10], resolutions: ['720p', '1080p'], aspectRatios: ['16:9'],
        maxReferenceImages: 0, maxReferenceVideos: 0, supportsWatermark: false, supportsMultiShots: false, supportsTranslation: false,
      },
      pricing: { kind: 'per_second', perSecond: { '720p': 5_000_000, '1080p': 8_000_000 } },
    };
    const v = { modality: 'video', prompt: 'x', aspectRatio: '16:9', duration: 10, resolution: '1080p', imageUrls: [], videoUrls: [], enableTranslation: false, watermark: null, multiShots: false } as const;
    expect(quoteRun(video, v)).toBe(80_000_000);
    const view = toPricingView(video);
    expect(view.prices).toEqual([
      { unit: 'second', resolution: '720p', credits: 5, usd: 0.05 },
      { unit: 'second', resolution: '1080p', credits: 8, usd: 0.08 },
    ]);
  });
});
