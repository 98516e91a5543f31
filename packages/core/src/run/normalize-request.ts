import type { z } from 'zod';
import { GatewayError } from '../errors/gateway-error.js';
import type { ChatCapabilities, ImageCapabilities, VideoCapabilities } from '../model/capabilities.js';
import { ratioValue, type AspectRatio } from '../model/modality.js';
import type { ModelDescriptor } from '../model/model.js';
import type { JsonObject, JsonValue } from '../util/json.js';
import { modelRequestSchema, type ModelRequestSchema } from './model-request-schema.js';
import type { NormalizedChatRequest, NormalizedImageRequest, NormalizedRequest, NormalizedVideoRequest } from '../model/normalized-request.js';
import { runRequestSchema, type RunRequest } from '../model/run-request.schema.js';

const PARAM_OBJECTS = ['video_params', 'image_params', 'llm_params'] as const;

function unsupported(param: string, message: string): GatewayError {
  return new GatewayError('unsupported_parameter', message, { param });
}

const schemaCache = new WeakMap<ModelDescriptor, ModelRequestSchema>();
function schemaFor(model: ModelDescriptor): ModelRequestSchema {
  let s = schemaCache.get(model);
  if (!s) schemaCache.set(model, (s = modelRequestSchema(model)));
  return s;
}

/** The first problem the model's own schema found, as a 400 naming the parameter. */
function modelSchemaError(model: ModelDescriptor, error: z.ZodError): GatewayError {
  const issue = error.issues[0];
  if (!issue) return new GatewayError('invalid_request', 'Invalid request.');
  const path = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    const param = path ? `${path}.${key}` : key;
    if (path === '' && (PARAM_OBJECTS as readonly string[]).includes(key)) {
      return unsupported(param, `${key} does not apply to a ${model.modality} model.`);
    }
    if (path === 'provider_params') {
      return unsupported(
        param,
        model.providerParams
          ? `${param} is not a parameter of ${model.id}; GET /api/v1/models/${model.id} lists what it accepts.`
          : `${model.id} takes no provider_params.`,
      );
    }
    return unsupported(param, `This model does not support ${param}.`);
  }
  if (path.startsWith('provider_params')) return new GatewayError('invalid_request', `${path}: ${issue.message}`, { param: path });
  if (path === 'generation_type') return new GatewayError('invalid_request', issue.message, { param: path });
  return unsupported(path, issue.message);
}

function defaultRatio(allowed: readonly AspectRatio[], preferred: AspectRatio): AspectRatio {
  return allowed.includes(preferred) || allowed[0] === undefined ? preferred : allowed[0];
}

function requirePrompt(req: RunRequest, required: boolean): string | null {
  const prompt = req.prompt?.trim() ? req.prompt : null;
  if (required && prompt === null) {
    throw new GatewayError('invalid_request', 'prompt is required for this model and must not be empty.', { param: 'prompt' });
  }
  return prompt;
}

function normalizeVideo(req: RunRequest, caps: VideoCapabilities, providerParams: JsonObject): NormalizedVideoRequest {
  const p = req.video_params ?? {};
  const imageUrls = p.image_urls ?? [];
  const videoUrls = p.video_urls ?? [];
  return {
    modality: 'video',
    prompt: requirePrompt(req, caps.promptRequired && imageUrls.length === 0 && videoUrls.length === 0),
    aspectRatio: p.aspect_ratio ?? defaultRatio(caps.aspectRatios, '16:9'),
    duration: p.duration ?? caps.durations[0] ?? 5,
    resolution: p.resolution ?? caps.resolutions[0] ?? '720p',
    imageUrls,
    videoUrls,
    enableTranslation: p.enable_translation ?? false,
    watermark: p.watermark ?? null,
    multiShots: p.multi_shots ?? false,
    providerParams,
  };
}

/** Width and height for an aspect ratio with the given long side, rounded to a multiple of `multipleOf` (default 2). */
export function sizeForAspectRatio(ratio: AspectRatio, longSide: number, multipleOf = 2): { width: number; height: number } {
  const r = ratioValue(ratio);
  const round = (n: number) => Math.max(multipleOf, Math.round(n / multipleOf) * multipleOf);
  return r >= 1 ? { width: round(longSide), height: round(longSide / r) } : { width: round(longSide * r), height: round(longSide) };
}

function imageSize(req: RunRequest, caps: ImageCapabilities, aspectRatio: AspectRatio): { width: number; height: number } {
  const p = req.image_params ?? {};
  const sizes = caps.sizes;
  if (sizes.kind === 'fixed') {
    const fits = (o: { width: number; height: number }) =>
      (p.width === undefined || o.width === p.width) && (p.height === undefined || o.height === p.height);
    const explicit = p.width !== undefined || p.height !== undefined;
    const byRatio = sizes.options.filter((o) => Math.abs(o.width / o.height - ratioValue(aspectRatio)) < 0.02);
    const pick = explicit ? sizes.options.find((o) => fits(o) && (p.aspect_ratio === undefined || byRatio.includes(o))) : byRatio[0];
    if (!pick) {
      const offered = sizes.options.map((o) => `${o.width}x${o.height}`).join(', ');
      throw unsupported(explicit ? 'image_params.width' : 'image_params.aspect_ratio', `This model produces only these sizes: ${offered}.`);
    }
    return pick;
  }
  const m = sizes.multipleOf ?? 1;
  const roundTo = (n: number) => Math.max(m, Math.round(n / m) * m);
  const r = ratioValue(aspectRatio);
  let { width, height } = sizeForAspectRatio(aspectRatio, sizes.defaultLongSide, Math.max(2, m));
  if (p.width !== undefined && p.height !== undefined) ({ width, height } = { width: p.width, height: p.height });
  else if (p.width !== undefined) ({ width, height } = { width: p.width, height: roundTo(p.width / r) });
  else if (p.height !== undefined) ({ width, height } = { width: roundTo(p.height * r), height: p.height });
  for (const [param, v] of [['image_params.width', width], ['image_params.height', height]] as const) {
    if (v < sizes.minSide || v > sizes.maxSide) {
      throw unsupported(param, `${param.split('.')[1]} ${v} is outside this model's range ${sizes.minSide}..${sizes.maxSide} pixels.`);
    }
  }
  return { width, height };
}

function normalizeImage(req: RunRequest, caps: ImageCapabilities, providerParams: JsonObject): NormalizedImageRequest {
  const p = req.image_params ?? {};
  const imageUrls = p.image_urls ?? [];
  const requested = p.aspect_ratio ?? defaultRatio(caps.aspectRatios, '1:1');
  const { width, height } = imageSize(req, caps, requested);
  // Explicit sides without a ratio: report the ratio of the size actually produced when the model lists it.
  const aspectRatio =
    p.aspect_ratio ?? (p.width !== undefined || p.height !== undefined ? caps.aspectRatios.find((r) => Math.abs(ratioValue(r) - width / height) < 0.02) : undefined) ?? requested;
  return {
    modality: 'image',
    prompt: requirePrompt(req, caps.promptRequired && imageUrls.length === 0),
    aspectRatio,
    width,
    height,
    n: p.n ?? 1,
    negativePrompt: p.negative_prompt ?? null,
    seed: p.seed ?? null,
    imageUrls,
    providerParams,
  };
}

function normalizeChat(req: RunRequest, caps: ChatCapabilities, providerParams: JsonObject): NormalizedChatRequest {
  const p = req.llm_params ?? {};
  if (caps.exclusiveTemperatureTopP && p.temperature !== undefined && p.top_p !== undefined) {
    throw unsupported('llm_params.top_p', 'This model accepts temperature or top_p, not both; send one of them.');
  }
  return {
    modality: 'chat',
    prompt: requirePrompt(req, true) ?? '',
    system: p.system?.trim() ? p.system : null,
    temperature: p.temperature ?? null,
    maxTokens: p.max_tokens ?? caps.defaultMaxTokens,
    topP: p.top_p ?? null,
    providerParams,
  };
}

/**
 * Checks a run request (already of the generic shape) against the model's own schema and resolves every
 * default. Throws 400 GatewayErrors: `unsupported_parameter` for what this model does not accept.
 */
export function normalizeRunRequest(model: ModelDescriptor, req: RunRequest): NormalizedRequest {
  const checked = schemaFor(model).safeParse(req);
  if (!checked.success) throw modelSchemaError(model, checked.error);
  // Keys a schema reads as undefined (an optional key it filled with nothing) are not sent upstream.
  const providerParams: JsonObject = Object.fromEntries(
    Object.entries(checked.data.provider_params).filter((e): e is [string, JsonValue] => e[1] !== undefined),
  );
  const caps = model.capabilities;
  switch (caps.modality) {
    case 'video':
      return normalizeVideo(req, caps, providerParams);
    case 'image':
      return normalizeImage(req, caps, providerParams);
    case 'chat':
      return normalizeChat(req, caps, providerParams);
  }
}

/** The whole check of a run body: the generic schema (400 invalid_request), then the model's (400 unsupported_parameter). */
export function validateRunRequest(model: ModelDescriptor, body: unknown): { request: RunRequest; normalized: NormalizedRequest } {
  const request = parseRunRequest(body);
  return { request, normalized: normalizeRunRequest(model, request) };
}

/** The generic shape of a run body (types, service-wide ranges, the routing fields); 400 invalid_request otherwise. */
export function parseRunRequest(body: unknown): RunRequest {
  const parsed = runRequestSchema.safeParse(body);
  if (!parsed.success) throw GatewayError.fromZod(parsed.error);
  return parsed.data;
}
