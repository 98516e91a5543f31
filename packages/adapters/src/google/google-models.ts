import type { ChatCapabilities, ImageCapabilities, PriceSource } from '@gengate/core/adapter';
import { z } from 'zod';
import { asProviderParams, type SdkModelEntry } from '../kit/index.js';

export const GOOGLE_PROVIDER_ID = 'google';
/** The API root the SDK is given when no base URL is configured (never read from the process environment). */
export const GOOGLE_DEFAULT_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';
export const GOOGLE_KEY_SETTING = 'GOOGLE_GENERATIVE_AI_API_KEY';

/*
 * Gemini API models and prices (Google AI for developers), taken on 2026-11-23 from
 * https://ai.google.dev/gemini-api/docs/pricing and https://ai.google.dev/gemini-api/docs/deprecations:
 * Gemini 2.5 Pro and Flash are retired on 2026-12-01 and every Imagen model is shut down (the AI SDK's
 * Google provider no longer calls Imagen), so gengate offers Gemini 3.5 chat models and the Gemini 3
 * image models, which generate images through generateContent.
 */
const PRICES: PriceSource = {
  url: 'https://ai.google.dev/gemini-api/docs/pricing',
  retrievedOn: '2026-11-23',
  note: 'Paid tier, standard (not batch, not cached) prices.',
};

const HARM_CATEGORIES = ['HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_DANGEROUS_CONTENT', 'HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_SEXUALLY_EXPLICIT', 'HARM_CATEGORY_CIVIC_INTEGRITY'] as const;
const THRESHOLDS = ['BLOCK_LOW_AND_ABOVE', 'BLOCK_MEDIUM_AND_ABOVE', 'BLOCK_ONLY_HIGH', 'BLOCK_NONE', 'OFF'] as const;

/** Gemini chat: thinking level and safety settings (https://ai.google.dev/gemini-api/docs/safety-settings). */
export const geminiChatParams = z.strictObject({
  thinking_level: z.enum(['low', 'medium', 'high']).optional(),
  safety_settings: z
    .array(z.strictObject({ category: z.enum(HARM_CATEGORIES), threshold: z.enum(THRESHOLDS) }))
    .max(HARM_CATEGORIES.length)
    .optional(),
});

/** Output sizes of the Gemini 3 image models at their default 1K resolution (21:9 is not offered: its size is not 21:9 within 2 %). */
export const GEMINI_IMAGE_SIZES: Readonly<Record<string, { readonly width: number; readonly height: number }>> = {
  '1:1': { width: 1024, height: 1024 },
  '2:3': { width: 848, height: 1264 },
  '3:2': { width: 1264, height: 848 },
  '3:4': { width: 896, height: 1200 },
  '4:3': { width: 1200, height: 896 },
  '4:5': { width: 928, height: 1152 },
  '5:4': { width: 1152, height: 928 },
  '9:16': { width: 768, height: 1376 },
  '16:9': { width: 1376, height: 768 },
};

const chatCaps: ChatCapabilities = {
  modality: 'chat',
  promptRequired: true,
  maxOutputTokens: 65_536,
  defaultMaxTokens: 2_048,
  temperature: { min: 0, max: 2 },
  supportsTopP: true,
  supportsSystem: true,
  contextWindow: 1_048_576,
};

const imageCaps: ImageCapabilities = {
  modality: 'image',
  promptRequired: true,
  aspectRatios: Object.keys(GEMINI_IMAGE_SIZES),
  sizes: { kind: 'fixed', options: Object.values(GEMINI_IMAGE_SIZES) },
  supportsNegativePrompt: false,
  supportsSeed: true,
  maxReferenceImages: 0,
  maxImages: 4,
};

const base = { provider: GOOGLE_PROVIDER_ID, isActive: true } as const;

export const GOOGLE_MODELS: readonly SdkModelEntry[] = [
  {
    upstream: 'gemini-3.5-flash',
    descriptor: {
      ...base,
      id: 'google.gemini-3.5-flash',
      name: 'Gemini 3.5 Flash',
      modality: 'chat',
      description: 'Google Gemini 3.5 Flash: fast general-purpose model with thinking, 1M-token context; thinking level and safety settings as provider_params.',
      tags: ['google', 'gemini', 'chat', 'text'],
      isPopular: true,
      capabilities: chatCaps,
      pricing: { kind: 'per_token', inputPerMillionTokens: 1_500_000, outputPerMillionTokens: 9_000_000 },
      priceSource: { ...PRICES, note: 'Input $1.50 / output $9.00 per 1M tokens (output includes thinking).' },
      providerParams: asProviderParams(geminiChatParams),
      pollIntervalSeconds: 1,
    },
  },
  {
    upstream: 'gemini-3.5-flash-lite',
    descriptor: {
      ...base,
      id: 'google.gemini-3.5-flash-lite',
      name: 'Gemini 3.5 Flash-Lite',
      modality: 'chat',
      description: 'Google Gemini 3.5 Flash-Lite: the lowest-cost Gemini for high-volume tasks; thinking level and safety settings as provider_params.',
      tags: ['google', 'gemini', 'chat', 'text', 'fast'],
      isPopular: false,
      capabilities: chatCaps,
      pricing: { kind: 'per_token', inputPerMillionTokens: 300_000, outputPerMillionTokens: 2_500_000 },
      priceSource: { ...PRICES, note: 'Input $0.30 (text) / output $2.50 per 1M tokens.' },
      providerParams: asProviderParams(geminiChatParams),
      pollIntervalSeconds: 1,
    },
  },
  {
    upstream: 'gemini-3-pro-image',
    descriptor: {
      ...base,
      id: 'google.gemini-3-pro-image',
      name: 'Gemini 3 Pro Image',
      modality: 'image',
      description: 'Google Gemini 3 Pro Image ("Nano Banana Pro"): high-fidelity text-to-image with legible text; nine aspect ratios at 1K, seed.',
      tags: ['google', 'gemini', 'image', 'text-to-image'],
      isPopular: true,
      capabilities: imageCaps,
      pricing: { kind: 'per_image', perImage: 134_000, tokens: { textInputPerMillionTokens: 2_000_000, promptBilled: 'per_image' } },
      priceSource: {
        ...PRICES,
        retrievedOn: '2026-11-25',
        note: 'Image output $120 per 1M tokens; a 1K image is 1,120 tokens = $0.134. Text input $2 per 1M, billed on each of the n calls (one image per call): held at one token per prompt byte, charged as reported. Thinking tokens (text output, $12 per 1M) have no budget a call can cap: not held, not charged.',
      },
      pollIntervalSeconds: 3,
    },
  },
  {
    upstream: 'gemini-3.1-flash-image',
    descriptor: {
      ...base,
      id: 'google.gemini-3.1-flash-image',
      name: 'Gemini 3.1 Flash Image',
      modality: 'image',
      description: 'Google Gemini 3.1 Flash Image ("Nano Banana 2"): fast text-to-image; nine aspect ratios at 1K, seed.',
      tags: ['google', 'gemini', 'image', 'text-to-image', 'fast'],
      isPopular: false,
      capabilities: imageCaps,
      pricing: { kind: 'per_image', perImage: 67_000, tokens: { textInputPerMillionTokens: 500_000, promptBilled: 'per_image' } },
      priceSource: {
        ...PRICES,
        retrievedOn: '2026-11-25',
        note: '$0.067 per 1K image (1,120 image output tokens at $60 per 1M). Text input $0.50 per 1M, billed on each of the n calls: held at one token per prompt byte, charged as reported. Thinking tokens (text output, $3 per 1M) are not held or charged.',
      },
      pollIntervalSeconds: 3,
    },
  },
];
