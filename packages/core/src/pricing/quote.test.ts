import { describe, expect, it } from 'vitest';
import type { ModelDescriptor } from '../model/model.js';
import type { NormalizedImageRequest, NormalizedVideoRequest } from '../model/normalized-request.js';
import { markupFor, parseMarkupFactor } from './markup.js';
import { toPricingView } from './pricing-view.js';
import { chargeForUsage, quoteRun } from './quote.js';

const base = { name: 'm', provider: 'p', description: '', tags: [], isPopular: false, isActive: true } as const;
const chat: ModelDescriptor = {
  ...base,
  id: 'p.chat',
  modality: 'chat',
  capabilities: { modality: 'chat', promptRequired: true, maxOutputTokens: 1000, defaultMaxTokens: 100, temperature: { min: 0, max: 2 }, supportsTopP: true, supportsSystem: true },
  // $1.50 / $6.00 per million tokens
  pricing: { kind: 'per_token', inputPerMillionTokens: 1_500_000, outputPerMillionTokens: 6_000_000 },
};
const chatReq = { modality: 'chat', prompt: 'héllo', system: null, temperature: null, maxTokens: 100, topP: null, providerParams: {} } as const;

function imageReq(patch: Partial<NormalizedImageRequest> = {}): NormalizedImageRequest {
  return { modality: 'image', prompt: 'x', aspectRatio: '1:1', width: 1024, height: 1024, n: 1, negativePrompt: null, seed: null, imageUrls: [], providerParams: {}, ...patch };
}
function videoReq(patch: Partial<NormalizedVideoRequest> = {}): NormalizedVideoRequest {
  return { modality: 'video', prompt: 'x', aspectRatio: '16:9', duration: 10, resolution: '1080p', imageUrls: [], videoUrls: [], enableTranslation: false, watermark: null, multiShots: false, providerParams: {}, ...patch };
}

describe('quotes and charges', () => {
  it('holds the chat worst case and charges the reported tokens, rounded up once, never above the hold', () => {
    // 6 UTF-8 bytes of input and 100 tokens of output: 6 x 1.5 + 100 x 6 = 609 micro-USD = 60,900 micro-credits
    const q = quoteRun(chat, chatReq);
    expect(q).toEqual({ costMicro: 60_900, chargeMicro: 60_900 });
    expect(chargeForUsage(chat, chatReq, q, { inputTokens: 3, outputTokens: 7 })).toEqual({ costMicro: 4_650, chargeMicro: 4_650 });
    expect(chargeForUsage(chat, chatReq, q, { inputTokens: 10_000, outputTokens: 10_000 })).toEqual(q);
  });

  it('counts the system instruction in the chat worst case', () => {
    expect(quoteRun(chat, { ...chatReq, system: 'abc' }).costMicro).toBe(quoteRun(chat, chatReq).costMicro + 3 * 150);
  });

  it('applies the markup in the same single rounding (integer arithmetic, no float drift)', () => {
    const cheap: ModelDescriptor = { ...chat, pricing: { kind: 'per_token', inputPerMillionTokens: 1, outputPerMillionTokens: 3 } };
    const req = { ...chatReq, prompt: 'a', maxTokens: 1 };
    // 1 x 1 + 1 x 3 = 4 pico-USD per million... = 4e-6 micro-USD: rounds up to 1 micro-credit either way
    expect(quoteRun(cheap, req)).toEqual({ costMicro: 1, chargeMicro: 1 });
    // x1.25: 609 micro-USD -> 761.25 micro-USD -> 76,125 micro-credits exactly
    expect(quoteRun(chat, chatReq, 12_500)).toEqual({ costMicro: 60_900, chargeMicro: 76_125 });
    // x1.3333: 609 x 1.3333 = 811.9797 micro-USD -> 81,197.97 -> 81,198 micro-credits (rounded up)
    expect(quoteRun(chat, chatReq, 13_333).chargeMicro).toBe(81_198);
  });

  it('prices n images, variants by provider parameters and size, and megapixels', () => {
    const image: ModelDescriptor = {
      ...base,
      id: 'p.image',
      modality: 'image',
      capabilities: {
        modality: 'image', promptRequired: true, aspectRatios: ['1:1'], sizes: { kind: 'range', minSide: 256, maxSide: 2048, defaultLongSide: 1024 },
        supportsNegativePrompt: false, supportsSeed: false, maxReferenceImages: 0, maxImages: 4,
      },
      pricing: {
        kind: 'per_image',
        perImage: 40_000,
        variants: [
          { when: { quality: 'high', size: '1024x1024' }, price: 167_000 },
          { when: { quality: 'low' }, price: 11_000 },
        ],
      },
    };
    expect(quoteRun(image, imageReq({ n: 3 })).chargeMicro).toBe(3 * 4_000_000);
    const high = imageReq({ n: 2, providerParams: { quality: 'high' } });
    const q = quoteRun(image, high);
    expect(q.chargeMicro).toBe(2 * 16_700_000);
    expect(chargeForUsage(image, high, q, { images: 1 }).chargeMicro).toBe(16_700_000);
    expect(chargeForUsage(image, high, q, { images: 5 })).toEqual(q);
    expect(quoteRun(image, imageReq({ providerParams: { quality: 'low' }, width: 512, height: 512 })).chargeMicro).toBe(1_100_000);
    const flux: ModelDescriptor = { ...image, pricing: { kind: 'per_image', perImage: 0, perMegapixel: 25_000 } };
    expect(quoteRun(flux, imageReq()).chargeMicro).toBe(2_500_000);
    expect(quoteRun(flux, imageReq({ width: 1536, height: 1024 })).chargeMicro).toBe(5_000_000);
  });

  it('holds the prompt of a token-billed image model at one token per byte and charges the usage the upstream reports', () => {
    const gptImage: ModelDescriptor = {
      ...base,
      id: 'p.gpt-image',
      modality: 'image',
      capabilities: {
        modality: 'image', promptRequired: true, aspectRatios: ['1:1'], sizes: { kind: 'range', minSide: 256, maxSide: 2048, defaultLongSide: 1024 },
        supportsNegativePrompt: false, supportsSeed: false, maxReferenceImages: 0, maxImages: 10,
      },
      // $0.006 per image held; text input $5, image input $8, image output $30 per 1M tokens; one call for every image
      pricing: {
        kind: 'per_image',
        perImage: 6_000,
        tokens: { textInputPerMillionTokens: 5_000_000, imageInputPerMillionTokens: 8_000_000, imageOutputPerMillionTokens: 30_000_000, promptBilled: 'per_request' },
      },
    };
    const prompt = 'x'.repeat(32_000);
    const req = imageReq({ prompt, n: 2 });
    // held: 2 x $0.006 + 32,000 bytes x $5/M = 12,000 + 160,000 = 172,000 micro-USD = 17,200,000 micro-credits
    const q = quoteRun(gptImage, req);
    expect(q.costMicro).toBe(17_200_000);
    // OpenAI's usage: 8,000 text tokens, 0 image tokens, 2 x 166 output tokens -> 40,000 + 9,960 = 49,960 micro-USD
    expect(chargeForUsage(gptImage, req, q, { images: 2, inputTokens: 8_000, inputTextTokens: 8_000, inputImageTokens: 0, outputTokens: 332 }).costMicro).toBe(4_996_000);
    // an unsplit input total is priced at the higher input rate: 1,000 x $8/M + 332 x $30/M = 8,000 + 9,960
    expect(chargeForUsage(gptImage, req, q, { images: 2, inputTokens: 1_000, outputTokens: 332 }).costMicro).toBe(1_796_000);
    // no usage reported: the images produced and the held input
    expect(chargeForUsage(gptImage, req, q, { images: 1 }).costMicro).toBe(16_600_000);
    // never above the hold
    expect(chargeForUsage(gptImage, req, q, { images: 2, inputTextTokens: 100_000, outputTokens: 100_000 })).toEqual(q);
    // one call per image: the prompt is billed n times
    const perImage: ModelDescriptor = { ...gptImage, pricing: { kind: 'per_image', perImage: 6_000, tokens: { textInputPerMillionTokens: 5_000_000, promptBilled: 'per_image' } } };
    expect(quoteRun(perImage, req).costMicro).toBe(2 * 600_000 + 2 * 16_000_000);
    // shown as their own lines of the pricing record
    expect(toPricingView(gptImage).prices.filter((l) => l.unit.startsWith('1M_'))).toEqual([
      { unit: '1M_text_input_tokens', resolution: null, conditions: null, credits: 500, usd: 5 },
      { unit: '1M_image_input_tokens', resolution: null, conditions: null, credits: 800, usd: 8 },
      { unit: '1M_image_output_tokens', resolution: null, conditions: null, credits: 3_000, usd: 30 },
    ]);
  });

  it('bills a prompt above the long-context threshold whole at the long-context prices', () => {
    const tiered: ModelDescriptor = {
      ...chat,
      pricing: { kind: 'per_token', inputPerMillionTokens: 100_000, outputPerMillionTokens: 500_000, longContext: { aboveInputTokens: 10, inputPerMillionTokens: 500_000, outputPerMillionTokens: 2_500_000 } },
    };
    // 6 bytes <= 10: base prices, 6 x 0.1 + 100 x 0.5 = 50.6 micro-USD
    expect(quoteRun(tiered, chatReq).costMicro).toBe(5_060);
    // 12 bytes > 10: 12 x 0.5 + 100 x 2.5 = 256 micro-USD
    const long = { ...chatReq, prompt: 'abcdefghijkl' };
    const q = quoteRun(tiered, long);
    expect(q.costMicro).toBe(25_600);
    expect(chargeForUsage(tiered, long, q, { inputTokens: 11, outputTokens: 4 }).costMicro).toBe(1_550);
    expect(chargeForUsage(tiered, long, q, { inputTokens: 10, outputTokens: 4 }).costMicro).toBe(300);
    expect(toPricingView(tiered).prices.slice(2)).toEqual([
      { unit: '1M_input_tokens', resolution: null, conditions: { input_tokens_above: 10 }, credits: 50, usd: 0.5 },
      { unit: '1M_output_tokens', resolution: null, conditions: { input_tokens_above: 10 }, credits: 250, usd: 2.5 },
    ]);
  });

  it('charges prompt-cache reads and writes at the cached-input prices; the hold is unchanged', () => {
    // Anthropic-style: input $1, cache read $0.10, cache write $1.25, output $5 per million tokens.
    const cached: ModelDescriptor = {
      ...chat,
      pricing: { kind: 'per_token', inputPerMillionTokens: 1_000_000, outputPerMillionTokens: 5_000_000, cachedInputPerMillionTokens: 100_000, cacheWriteInputPerMillionTokens: 1_250_000 },
    };
    // Held: 6 bytes as plain input (6 x 1) + 100 x 5 = 506 micro-USD = 50,600 micro-credits.
    const q = quoteRun(cached, chatReq);
    expect(q.costMicro).toBe(50_600);
    // 1,000 input tokens: 800 read, 100 written, 100 plain; 10 output: 80 + 125 + 100 + 50 = 355 micro-USD.
    expect(chargeForUsage(cached, chatReq, { costMicro: 10_000_000, chargeMicro: 10_000_000 }, { inputTokens: 1_000, cacheReadTokens: 800, cacheWriteTokens: 100, outputTokens: 10 }).costMicro).toBe(35_500);
    // Without cached prices, cache tokens are input: 1,000 x 1.5 + 10 x 6 = 1,560 micro-USD; the hold is unchanged.
    expect(chargeForUsage(chat, chatReq, { costMicro: 10_000_000, chargeMicro: 10_000_000 }, { inputTokens: 1_000, cacheReadTokens: 800, cacheWriteTokens: 100, outputTokens: 10 }).costMicro).toBe(156_000);
    expect(toPricingView(cached).prices.map((l) => [l.unit, l.usd])).toEqual([
      ['1M_input_tokens', 1],
      ['1M_output_tokens', 5],
      ['1M_cached_input_tokens', 0.1],
      ['1M_cache_write_input_tokens', 1.25],
    ]);
  });

  it('prices video per second and resolution (produced seconds when reported) or per video', () => {
    const video: ModelDescriptor = {
      ...base,
      id: 'p.video',
      modality: 'video',
      capabilities: {
        modality: 'video', promptRequired: true, durations: [5, 10], resolutions: ['720p', '1080p'], aspectRatios: ['16:9'],
        maxReferenceImages: 0, maxReferenceVideos: 0, supportsWatermark: false, supportsMultiShots: false, supportsTranslation: false,
      },
      pricing: { kind: 'per_second', perSecond: { '720p': 50_000, '1080p': 80_000 }, variants: [{ when: { resolution: '1080p', generate_audio: true }, price: 120_000 }] },
    };
    const q = quoteRun(video, videoReq());
    expect(q.chargeMicro).toBe(80_000_000);
    expect(chargeForUsage(video, videoReq(), q, { videoSeconds: 8.04 }).chargeMicro).toBe(72_000_000);
    expect(quoteRun(video, videoReq({ providerParams: { generate_audio: true } })).chargeMicro).toBe(120_000_000);
    const perVideo: ModelDescriptor = { ...video, pricing: { kind: 'per_video', perVideo: { '720p': 270_000, '1080p': 490_000 }, variants: [{ when: { duration: 10 }, price: 560_000 }] } };
    expect(quoteRun(perVideo, videoReq({ duration: 5 })).chargeMicro).toBe(49_000_000);
    expect(quoteRun(perVideo, videoReq({ duration: 10 })).chargeMicro).toBe(56_000_000);
  });

  it('shows the user’s price: markup included, variants with their conditions', () => {
    const video: ModelDescriptor = {
      ...base,
      id: 'p.video',
      modality: 'video',
      capabilities: {
        modality: 'video', promptRequired: true, durations: [5], resolutions: ['720p', '1080p'], aspectRatios: ['16:9'],
        maxReferenceImages: 0, maxReferenceVideos: 0, supportsWatermark: false, supportsMultiShots: false, supportsTranslation: false,
      },
      pricing: { kind: 'per_second', perSecond: { '720p': 50_000, '1080p': 80_000 }, variants: [{ when: { resolution: '1080p', generate_audio: true }, price: 120_000 }] },
    };
    expect(toPricingView(video).prices).toEqual([
      { unit: 'second', resolution: '720p', conditions: null, credits: 5, usd: 0.05 },
      { unit: 'second', resolution: '1080p', conditions: null, credits: 8, usd: 0.08 },
      { unit: 'second', resolution: '1080p', conditions: { generate_audio: true }, credits: 12, usd: 0.12 },
    ]);
    expect(toPricingView(video, 12_500).prices[0]).toEqual({ unit: 'second', resolution: '720p', conditions: null, credits: 6.25, usd: 0.0625 });
  });

  it('parses markup factors and picks the model’s, else the provider’s, else the default', () => {
    expect(parseMarkupFactor('1')).toBe(10_000);
    expect(parseMarkupFactor('1.25')).toBe(12_500);
    expect(parseMarkupFactor('0.9')).toBe(9_000);
    expect(parseMarkupFactor('1.23456')).toBeNull();
    expect(parseMarkupFactor('0')).toBeNull();
    expect(parseMarkupFactor('-1')).toBeNull();
    expect(parseMarkupFactor('abc')).toBeNull();
    const policy = { defaultBp: 11_000, providers: new Map([['p', 12_000]]), models: new Map([['p.chat', 15_000]]) };
    expect(markupFor(policy, chat)).toBe(15_000);
    expect(markupFor(policy, { ...chat, id: 'p.other' })).toBe(12_000);
    expect(markupFor(policy, { ...chat, id: 'q.x', provider: 'q' })).toBe(11_000);
  });
});
