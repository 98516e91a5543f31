import type { ChatCapabilities, ImageCapabilities, PriceSource, PriceVariant } from '@gengate/core/adapter';
import { z } from 'zod';
import { asProviderParams, type SdkModelEntry } from '../kit/index.js';

export const OPENAI_PROVIDER_ID = 'openai';
/** The API root the SDK is given when no base URL is configured (never read from the process environment). */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const OPENAI_KEY_SETTING = 'OPENAI_API_KEY';

/*
 * Prices are OpenAI's list prices in micro-USD, taken on 2026-11-23 from the pages named in each
 * priceSource. Model lifecycle from https://developers.openai.com/api/docs/deprecations (same day):
 * gpt-4.1, gpt-4.1-mini, gpt-4o and gpt-4o-mini are deprecated and shut down on 2027-01-14;
 * gpt-image-1.5 shuts down on 2026-12-01; gpt-image-1, gpt-4.1-nano and dall-e-3 are already shut down.
 */
const TEXT_PRICES: PriceSource = {
  url: 'https://developers.openai.com/api/docs/pricing',
  retrievedOn: '2026-11-23',
  note: 'Standard tier, per 1M text tokens; cached input at its own price where OpenAI reports cached tokens.',
};

/** OpenAI's own chat parameters beyond the generic ones (Chat Completions API). */
export const openAIChatParams = z.strictObject({
  frequency_penalty: z.number().min(-2).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  stop: z.array(z.string().min(1).max(200)).min(1).max(4).optional(),
  seed: z.number().int().min(0).max(2 ** 31 - 1).optional(),
});

const base = { provider: OPENAI_PROVIDER_ID, isActive: true } as const;

function chatCaps(maxOutputTokens: number, contextWindow: number): ChatCapabilities {
  return {
    modality: 'chat',
    promptRequired: true,
    maxOutputTokens,
    defaultMaxTokens: 1_024,
    temperature: { min: 0, max: 2 },
    supportsTopP: true,
    supportsSystem: true,
    contextWindow,
  };
}

function chat(upstream: string, name: string, description: string, caps: ChatCapabilities, [input, cached, output]: readonly [number, number, number], popular = false): SdkModelEntry {
  return {
    upstream,
    descriptor: {
      ...base,
      id: `openai.${upstream}`,
      name,
      modality: 'chat',
      description,
      tags: ['openai', 'chat', 'text'],
      isPopular: popular,
      capabilities: caps,
      pricing: { kind: 'per_token', inputPerMillionTokens: input, outputPerMillionTokens: output, cachedInputPerMillionTokens: cached },
      priceSource: TEXT_PRICES,
      providerParams: asProviderParams(openAIChatParams),
      pollIntervalSeconds: 1,
    },
  };
}

/** The sizes GPT Image models make, and the generic aspect ratio of each. */
export const GPT_IMAGE_SIZES = [
  { width: 1024, height: 1024 },
  { width: 1536, height: 1024 },
  { width: 1024, height: 1536 },
] as const;

const GPT_IMAGE_CAPS: ImageCapabilities = {
  modality: 'image',
  promptRequired: true,
  aspectRatios: ['1:1', '3:2', '2:3'],
  sizes: { kind: 'fixed', options: GPT_IMAGE_SIZES },
  supportsNegativePrompt: false,
  supportsSeed: false,
  maxReferenceImages: 0,
  maxImages: 10,
};

/** gpt-image-2: `quality` prices the image; transparent backgrounds are not offered by this model. */
export const gptImage2Params = z.strictObject({
  quality: z.enum(['low', 'medium', 'high', 'auto']).default('medium'),
  background: z.enum(['opaque', 'auto']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
  moderation: z.enum(['auto', 'low']).optional(),
});

/** gpt-image-1.5: as gpt-image-2, plus transparent backgrounds. */
export const gptImage15Params = z.strictObject({
  quality: z.enum(['low', 'medium', 'high', 'auto']).default('medium'),
  background: z.enum(['transparent', 'opaque', 'auto']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
  moderation: z.enum(['auto', 'low']).optional(),
});

/** Per-image prices by quality and size (micro-USD); `auto` lets OpenAI choose, so it is held and charged as `high`. */
function qualityVariants(table: Readonly<Record<'low' | 'medium' | 'high', readonly [number, number, number]>>): PriceVariant[] {
  const out: PriceVariant[] = [];
  for (const quality of ['low', 'medium', 'high', 'auto'] as const) {
    const prices = table[quality === 'auto' ? 'high' : quality];
    GPT_IMAGE_SIZES.forEach((s, i) => out.push({ when: { quality, size: `${s.width}x${s.height}` }, price: prices[i] ?? 0 }));
  }
  return out;
}

export const OPENAI_MODELS: readonly SdkModelEntry[] = [
  chat(
    'gpt-4.1',
    'GPT-4.1',
    'OpenAI GPT-4.1: strong instruction following and long context (1M tokens). Deprecated by OpenAI; shuts down 2027-01-14.',
    chatCaps(32_768, 1_047_576),
    [2_000_000, 500_000, 8_000_000],
    true,
  ),
  chat(
    'gpt-4.1-mini',
    'GPT-4.1 mini',
    'OpenAI GPT-4.1 mini: fast and inexpensive, 1M-token context. Deprecated by OpenAI; shuts down 2027-01-14.',
    chatCaps(32_768, 1_047_576),
    [400_000, 100_000, 1_600_000],
  ),
  chat(
    'gpt-4o',
    'GPT-4o',
    'OpenAI GPT-4o: general-purpose multimodal model, 128K context. Deprecated by OpenAI; shuts down 2027-01-14.',
    chatCaps(16_384, 128_000),
    [2_500_000, 1_250_000, 10_000_000],
  ),
  chat(
    'gpt-4o-mini',
    'GPT-4o mini',
    'OpenAI GPT-4o mini: small, low-cost model, 128K context. Deprecated by OpenAI; shuts down 2027-01-14.',
    chatCaps(16_384, 128_000),
    [150_000, 75_000, 600_000],
  ),
  {
    upstream: 'gpt-image-2',
    descriptor: {
      ...base,
      id: 'openai.gpt-image-2',
      name: 'GPT Image 2',
      modality: 'image',
      description: 'OpenAI GPT Image 2: text-to-image in 1024x1024, 1536x1024 or 1024x1536; quality low, medium (default), high or auto.',
      tags: ['openai', 'image', 'text-to-image'],
      isPopular: true,
      capabilities: GPT_IMAGE_CAPS,
      pricing: {
        kind: 'per_image',
        perImage: 53_000,
        variants: qualityVariants({ low: [6_000, 5_000, 5_000], medium: [53_000, 41_000, 41_000], high: [211_000, 165_000, 165_000] }),
        tokens: { textInputPerMillionTokens: 5_000_000, imageInputPerMillionTokens: 8_000_000, imageOutputPerMillionTokens: 30_000_000, promptBilled: 'per_request' },
      },
      priceSource: {
        url: 'https://developers.openai.com/api/docs/models/gpt-image-2',
        retrievedOn: '2026-11-25',
        note: "Billed in tokens: text input $5, image input $8, image output $30 per 1M. Held: OpenAI's per-image examples (1024x1024 low $0.006, medium $0.053, high $0.211; 1536x1024 and 1024x1536 $0.005, $0.041, $0.165, from the image generation guide) plus every prompt byte as a text token; charged: the tokens OpenAI reports, never above the hold.",
      },
      providerParams: asProviderParams(gptImage2Params),
      pollIntervalSeconds: 3,
    },
  },
  {
    upstream: 'gpt-image-1.5',
    descriptor: {
      ...base,
      id: 'openai.gpt-image-1.5',
      name: 'GPT Image 1.5',
      modality: 'image',
      description: 'OpenAI GPT Image 1.5: text-to-image in three sizes, transparent backgrounds. Deprecated by OpenAI; shuts down 2026-12-01.',
      tags: ['openai', 'image', 'text-to-image'],
      isPopular: false,
      capabilities: GPT_IMAGE_CAPS,
      pricing: {
        kind: 'per_image',
        perImage: 34_000,
        variants: qualityVariants({ low: [9_000, 13_000, 13_000], medium: [34_000, 50_000, 51_000], high: [133_000, 199_000, 200_000] }),
        tokens: { textInputPerMillionTokens: 5_000_000, imageOutputPerMillionTokens: 32_000_000, promptBilled: 'per_request' },
      },
      priceSource: {
        url: 'https://developers.openai.com/api/docs/models/gpt-image-1.5',
        retrievedOn: '2026-11-25',
        note: 'Billed in tokens: text input $5, image output $32 per 1M (no reference images are taken, so no image input). Held: the per-image prices by quality and size (1024x1024 / 1536x1024 / 1024x1536) plus every prompt byte as a text token; charged: the tokens OpenAI reports, never above the hold.',
      },
      providerParams: asProviderParams(gptImage15Params),
      pollIntervalSeconds: 3,
    },
  },
];
