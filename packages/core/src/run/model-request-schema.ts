import { z } from 'zod';
import type { ChatCapabilities, ImageCapabilities, VideoCapabilities } from '../model/capabilities.js';
import type { ModelDescriptor, ProviderParamsObject } from '../model/model.js';
import { requestRoutingSchema } from '../model/routing.js';

/*
 * A model's own request schema, derived from its capabilities (data) and its provider-parameter schema.
 * It is applied after the generic run schema (types and service-wide ranges), so its failures are about
 * what THIS model accepts. The same schema, as JSON Schema, is what GET /models/{id} publishes.
 */

const list = (values: readonly (string | number)[]) => values.join(', ');

function enumOf(values: readonly string[], what: string): z.ZodType<string> {
  return z.enum(values as [string, ...string[]], { error: (iss) => `${what} ${String(iss.input)} is not supported by this model; use one of ${list(values)}.` });
}

function numberOf(values: readonly number[], what: string, unit: string): z.ZodType<number> {
  return z.literal(values as [number, ...number[]], { error: (iss) => `${what} ${String(iss.input)} is not supported by this model; use one of ${list(values)}${unit}.` });
}

function urls(max: number, what: string): z.ZodType<string[]> {
  return z.array(z.string()).max(max, { error: `This model accepts at most ${max} ${what}.` });
}

/** A feature the model lacks may still be sent with its "off" value (false), never "on". */
function offOnly(what: string): z.ZodType<false> {
  return z.literal(false, { error: `This model does not support ${what}.` });
}

function videoParams(c: VideoCapabilities) {
  return z.strictObject({
    aspect_ratio: enumOf(c.aspectRatios, 'Aspect ratio').optional(),
    duration: numberOf(c.durations, 'Duration', ' seconds').optional(),
    resolution: enumOf(c.resolutions, 'Resolution').optional(),
    ...(c.maxReferenceImages > 0 ? { image_urls: urls(c.maxReferenceImages, 'reference images').optional() } : {}),
    ...(c.maxReferenceVideos > 0 ? { video_urls: urls(c.maxReferenceVideos, 'reference videos').optional() } : {}),
    enable_translation: (c.supportsTranslation ? z.boolean() : offOnly('enable_translation')).optional(),
    ...(c.supportsWatermark ? { watermark: z.string().optional() } : {}),
    multi_shots: (c.supportsMultiShots ? z.boolean() : offOnly('multi_shots')).optional(),
  });
}

function side(c: ImageCapabilities, name: 'width' | 'height'): z.ZodType<number> {
  const s = c.sizes;
  if (s.kind === 'fixed') return numberOf([...new Set(s.options.map((o) => o[name]))], name, ' pixels');
  let schema = z
    .number()
    .int()
    .min(s.minSide, { error: (iss) => `${name} ${String(iss.input)} is outside this model's range ${s.minSide}..${s.maxSide} pixels.` })
    .max(s.maxSide, { error: (iss) => `${name} ${String(iss.input)} is outside this model's range ${s.minSide}..${s.maxSide} pixels.` });
  if (s.multipleOf !== undefined && s.multipleOf > 1) schema = schema.multipleOf(s.multipleOf, { error: `${name} must be a multiple of ${s.multipleOf} for this model.` });
  return schema;
}

function imageParams(c: ImageCapabilities) {
  const maxImages = c.maxImages ?? 1;
  return z.strictObject({
    aspect_ratio: enumOf(c.aspectRatios, 'Aspect ratio').optional(),
    width: side(c, 'width').optional(),
    height: side(c, 'height').optional(),
    ...(c.supportsNegativePrompt ? { negative_prompt: z.string().optional() } : {}),
    ...(c.supportsSeed ? { seed: z.number().int().optional() } : {}),
    ...(c.maxReferenceImages > 0 ? { image_urls: urls(c.maxReferenceImages, 'reference images').optional() } : {}),
    n: z.number().int().min(1).max(maxImages, { error: `This model produces at most ${maxImages} image${maxImages === 1 ? '' : 's'} per request.` }).optional(),
  });
}

function llmParams(c: ChatCapabilities) {
  const t = c.temperature;
  return z.strictObject({
    ...(t
      ? {
          temperature: z
            .number()
            .min(t.min, { error: `temperature must be between ${t.min} and ${t.max} for this model.` })
            .max(t.max, { error: `temperature must be between ${t.min} and ${t.max} for this model.` })
            .optional(),
        }
      : {}),
    max_tokens: z.number().int().max(c.maxOutputTokens, { error: (iss) => `max_tokens ${String(iss.input)} exceeds this model's maximum of ${c.maxOutputTokens}.` }).optional(),
    ...(c.supportsTopP ? { top_p: z.number().optional() } : {}),
    ...(c.supportsSystem ? { system: z.string().optional() } : {}),
  });
}

/**
 * The model's own schema for a run body (already of the generic shape). Declared rather than inferred: the
 * inferred type names conditional keys as `key?: ZodOptional<...> | undefined`, which a consumer's
 * `exactOptionalPropertyTypes` with `skipLibCheck: false` rejects in the published declarations.
 */
export type ModelRequestSchema = z.ZodType<{ readonly provider_params: ProviderParamsObject }>;

/** The model's own schema for the whole run body. */
export function modelRequestSchema(model: ModelDescriptor): ModelRequestSchema {
  const c = model.capabilities;
  const base = {
    prompt: z.string().optional(),
    generation_type: z.literal(model.modality, { error: (iss) => `generation_type ${String(iss.input)} does not match the model's modality ${model.modality}.` }).optional(),
    callback_url: z.string().optional(),
    provider_params: (model.providerParams ?? z.strictObject({})).prefault({}),
    // The routing fields were checked by the generic schema; they choose routes, every model takes them.
    provider: requestRoutingSchema.shape.provider,
    models: requestRoutingSchema.shape.models,
  };
  switch (c.modality) {
    case 'video':
      return z.strictObject({ ...base, video_params: videoParams(c).optional() });
    case 'image':
      return z.strictObject({ ...base, image_params: imageParams(c).optional() });
    case 'chat':
      return z.strictObject({ ...base, llm_params: llmParams(c).optional() });
  }
}

/** What GET /models/{id} publishes as `parameters`: the model's request schema as JSON Schema (2020-12). */
export function modelParametersJsonSchema(model: ModelDescriptor): Record<string, unknown> {
  return z.toJSONSchema(modelRequestSchema(model), { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
}
