import { GatewayError } from '../errors/gateway-error.js';
import type { ChatCapabilities, ImageCapabilities, VideoCapabilities } from '../model/capabilities.js';
import type { AspectRatio } from '../model/modality.js';
import type { ModelDescriptor } from '../model/model.js';
import type {
  NormalizedChatRequest,
  NormalizedImageRequest,
  NormalizedRequest,
  NormalizedVideoRequest,
} from './normalized-request.js';
import type { RunRequest } from './run-request.schema.js';

function unsupported(param: string, message: string): GatewayError {
  return new GatewayError('unsupported_parameter', message, { param });
}

function pickDefaultRatio(allowed: readonly AspectRatio[], preferred: AspectRatio): AspectRatio {
  const first = allowed[0];
  if (allowed.includes(preferred) || first === undefined) return preferred;
  return first;
}

function checkList(values: readonly string[] | undefined, max: number, param: string, what: string): readonly string[] {
  const list = values ?? [];
  if (list.length > 0 && max === 0) throw unsupported(param, `This model does not accept ${what}.`);
  if (list.length > max) throw unsupported(param, `This model accepts at most ${max} ${what}.`);
  return list;
}

function requirePrompt(req: RunRequest, required: boolean): string | null {
  const prompt = req.prompt?.trim() ? req.prompt : null;
  if (required && prompt === null) {
    throw new GatewayError('invalid_request', 'prompt is required for this model and must not be empty.', { param: 'prompt' });
  }
  return prompt;
}

function refuseForeignParams(req: RunRequest, modality: ModelDescriptor['modality']): void {
  const foreign = (['video_params', 'image_params', 'llm_params'] as const).filter(
    (k) => req[k] !== undefined && k !== `${modality === 'chat' ? 'llm' : modality}_params`,
  );
  const first = foreign[0];
  if (first !== undefined) throw unsupported(first, `${first} does not apply to a ${modality} model.`);
}

function normalizeVideo(req: RunRequest, caps: VideoCapabilities): NormalizedVideoRequest {
  const p = req.video_params ?? { enable_translation: false, multi_shots: false };
  const aspectRatio = p.aspect_ratio ?? pickDefaultRatio(caps.aspectRatios, '16:9');
  if (!caps.aspectRatios.includes(aspectRatio)) {
    throw unsupported('video_params.aspect_ratio', `Aspect ratio ${aspectRatio} is not supported by this model; use one of ${caps.aspectRatios.join(', ')}.`);
  }
  const duration = p.duration ?? caps.durations[0];
  if (duration === undefined || !caps.durations.includes(duration)) {
    throw unsupported('video_params.duration', `Duration ${String(p.duration)} is not supported by this model; use one of ${caps.durations.join(', ')} seconds.`);
  }
  const resolution = p.resolution ?? caps.resolutions[0];
  if (resolution === undefined || !caps.resolutions.includes(resolution)) {
    throw unsupported('video_params.resolution', `Resolution ${String(p.resolution)} is not supported by this model; use one of ${caps.resolutions.join(', ')}.`);
  }
  if (p.watermark !== undefined && !caps.supportsWatermark) throw unsupported('video_params.watermark', 'This model does not support a watermark.');
  if (p.multi_shots && !caps.supportsMultiShots) throw unsupported('video_params.multi_shots', 'This model does not support multi_shots.');
  if (p.enable_translation && !caps.supportsTranslation) throw unsupported('video_params.enable_translation', 'This model does not support enable_translation.');
  const imageUrls = checkList(p.image_urls, caps.maxReferenceImages, 'video_params.image_urls', 'reference images');
  const videoUrls = checkList(p.video_urls, caps.maxReferenceVideos, 'video_params.video_urls', 'reference videos');
  const prompt = requirePrompt(req, caps.promptRequired && imageUrls.length === 0 && videoUrls.length === 0);
  return {
    modality: 'video',
    prompt,
    aspectRatio,
    duration,
    resolution,
    imageUrls,
    videoUrls,
    enableTranslation: p.enable_translation,
    watermark: p.watermark ?? null,
    multiShots: p.multi_shots,
  };
}

const RATIO_VALUES: Record<AspectRatio, number> = { '16:9': 16 / 9, '9:16': 9 / 16, '1:1': 1, '4:3': 4 / 3, '3:4': 3 / 4 };

/** Width and height for an aspect ratio with the given long side (even integers). */
export function sizeForAspectRatio(ratio: AspectRatio, longSide: number): { width: number; height: number } {
  const r = RATIO_VALUES[ratio];
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  return r >= 1 ? { width: even(longSide), height: even(longSide / r) } : { width: even(longSide * r), height: even(longSide) };
}

function normalizeImage(req: RunRequest, caps: ImageCapabilities): NormalizedImageRequest {
  const p = req.image_params ?? {};
  const aspectRatio = p.aspect_ratio ?? pickDefaultRatio(caps.aspectRatios, '1:1');
  if (!caps.aspectRatios.includes(aspectRatio)) {
    throw unsupported('image_params.aspect_ratio', `Aspect ratio ${aspectRatio} is not supported by this model; use one of ${caps.aspectRatios.join(', ')}.`);
  }
  let { width, height } = sizeForAspectRatio(aspectRatio, caps.defaultLongSide);
  if (p.width !== undefined && p.height !== undefined) {
    width = p.width;
    height = p.height;
  } else if (p.width !== undefined) {
    width = p.width;
    height = Math.max(1, Math.round(p.width / RATIO_VALUES[aspectRatio]));
  } else if (p.height !== undefined) {
    height = p.height;
    width = Math.max(1, Math.round(p.height * RATIO_VALUES[aspectRatio]));
  }
  for (const [param, v] of [['image_params.width', width], ['image_params.height', height]] as const) {
    if (v < caps.minSide || v > caps.maxSide) {
      throw unsupported(param, `${param.split('.')[1]} ${v} is outside this model's range ${caps.minSide}..${caps.maxSide} pixels.`);
    }
  }
  if (p.negative_prompt !== undefined && !caps.supportsNegativePrompt) throw unsupported('image_params.negative_prompt', 'This model does not support negative_prompt.');
  if (p.seed !== undefined && !caps.supportsSeed) throw unsupported('image_params.seed', 'This model does not support seed.');
  const imageUrls = checkList(p.image_urls, caps.maxReferenceImages, 'image_params.image_urls', 'reference images');
  return {
    modality: 'image',
    prompt: requirePrompt(req, caps.promptRequired && imageUrls.length === 0),
    aspectRatio,
    width,
    height,
    negativePrompt: p.negative_prompt ?? null,
    seed: p.seed ?? null,
    imageUrls,
  };
}

function normalizeChat(req: RunRequest, caps: ChatCapabilities): NormalizedChatRequest {
  const p = req.llm_params ?? {};
  const prompt = requirePrompt(req, true) ?? '';
  if (p.max_tokens !== undefined && p.max_tokens > caps.maxOutputTokens) {
    throw unsupported('llm_params.max_tokens', `max_tokens ${p.max_tokens} exceeds this model's maximum of ${caps.maxOutputTokens}.`);
  }
  if (p.top_p !== undefined && !caps.supportsTopP) throw unsupported('llm_params.top_p', 'This model does not support top_p.');
  return {
    modality: 'chat',
    prompt,
    temperature: p.temperature ?? null,
    maxTokens: p.max_tokens ?? caps.defaultMaxTokens,
    topP: p.top_p ?? null,
  };
}

/** Checks a parsed run request against the model's capabilities and resolves defaults. Throws 400s. */
export function normalizeRunRequest(model: ModelDescriptor, req: RunRequest): NormalizedRequest {
  if (req.generation_type !== undefined && req.generation_type !== model.modality) {
    throw new GatewayError('invalid_request', `generation_type ${req.generation_type} does not match the model's modality ${model.modality}.`, {
      param: 'generation_type',
    });
  }
  refuseForeignParams(req, model.modality);
  const caps = model.capabilities;
  switch (caps.modality) {
    case 'video':
      return normalizeVideo(req, caps);
    case 'image':
      return normalizeImage(req, caps);
    case 'chat':
      return normalizeChat(req, caps);
  }
}
