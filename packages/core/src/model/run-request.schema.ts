import { z } from 'zod';
import { aspectRatioSchema, modalitySchema, videoResolutionSchema } from './modality.js';
import { requestRoutingSchema } from './routing.js';

/** Service-wide input limits (documented in docs/api.md). */
export const RUN_LIMITS = {
  maxPromptLength: 32_000,
  maxSystemLength: 32_000,
  maxUrlLength: 2_048,
  maxReferenceUrls: 8,
  maxWatermarkLength: 100,
  maxNegativePromptLength: 2_000,
  maxSeed: 4_294_967_295,
  maxImageSide: 8_192,
  maxImages: 10,
  maxTokens: 1_000_000,
  maxDurationSeconds: 600,
} as const;

export const httpUrlSchema = z
  .string()
  .max(RUN_LIMITS.maxUrlLength)
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === 'http:' || u.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http or https URL');

const urlList = z.array(httpUrlSchema).max(RUN_LIMITS.maxReferenceUrls);

/*
 * The generic shape of POST /run/{model_id}: types and service-wide ranges only. What one model accepts
 * (which durations, ratios, sizes, which provider parameters) is its own schema, built from its
 * capabilities in model-request-schema.ts and applied after this one.
 */

export const videoParamsSchema = z.strictObject({
  aspect_ratio: aspectRatioSchema.optional(),
  duration: z.number().positive().max(RUN_LIMITS.maxDurationSeconds).optional(),
  resolution: videoResolutionSchema.optional(),
  image_urls: urlList.optional(),
  video_urls: urlList.optional(),
  enable_translation: z.boolean().optional(),
  watermark: z.string().max(RUN_LIMITS.maxWatermarkLength).optional(),
  multi_shots: z.boolean().optional(),
});

export const imageParamsSchema = z.strictObject({
  aspect_ratio: aspectRatioSchema.optional(),
  width: z.number().int().min(1).max(RUN_LIMITS.maxImageSide).optional(),
  height: z.number().int().min(1).max(RUN_LIMITS.maxImageSide).optional(),
  negative_prompt: z.string().max(RUN_LIMITS.maxNegativePromptLength).optional(),
  seed: z.number().int().min(0).max(RUN_LIMITS.maxSeed).optional(),
  image_urls: urlList.optional(),
  /** gengate extension: number of images, default 1, at most the model's limit. */
  n: z.number().int().min(1).max(RUN_LIMITS.maxImages).optional(),
});

export const llmParamsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(1).max(RUN_LIMITS.maxTokens).optional(),
  top_p: z.number().min(0).max(1).optional(),
  /** gengate extension: a system instruction. */
  system: z.string().max(RUN_LIMITS.maxSystemLength).optional(),
});

/** Provider-specific parameters: any JSON object here; each model validates it strictly with its own schema. */
export const providerParamsSchema = z.record(z.string().max(100), z.json());

/** Body of POST /api/v1/run/{model_id}. Unknown fields are refused, never dropped. */
export const runRequestSchema = z.strictObject({
  prompt: z.string().max(RUN_LIMITS.maxPromptLength).optional(),
  generation_type: modalitySchema.optional(),
  callback_url: httpUrlSchema.optional(),
  video_params: videoParamsSchema.optional(),
  image_params: imageParamsSchema.optional(),
  llm_params: llmParamsSchema.optional(),
  provider_params: providerParamsSchema.optional(),
  /** gengate extension (OpenRouter's names): the routing policy of this request and its fallback models. */
  ...requestRoutingSchema.shape,
});

export type RunRequest = z.infer<typeof runRequestSchema>;
export type VideoParams = z.infer<typeof videoParamsSchema>;
export type ImageParams = z.infer<typeof imageParamsSchema>;
export type LlmParams = z.infer<typeof llmParamsSchema>;
