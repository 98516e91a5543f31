import type { ModelDescriptor } from '@gengate/core/adapter';
import { z } from 'zod';

const RETRIEVED = '2026-11-23';
const common = { provider: 'fal', isActive: true } as const;

/** How a fal video model's endpoint wants its inputs (checked against each model's documented input schema). */
export interface FalVideoEndpoints {
  readonly kind: 'video';
  /** Text-to-video model path on the queue (`fal-ai/...`). */
  readonly textToVideo: string;
  /** Image-to-video model path, taking `image_url`. */
  readonly imageToVideo: string;
  /** `duration` as the schema's enum writes it: "5" or "8s". */
  readonly durationFormat: 'plain' | 'seconds';
  /** Whether the schema takes `aspect_ratio` (and `resolution`). */
  readonly sendsAspectRatio: boolean;
  readonly sendsResolution: boolean;
}

export interface FalImageEndpoint {
  readonly kind: 'image';
  /** Model id for fal.run (what @ai-sdk/fal's image model posts to). */
  readonly modelPath: string;
}

export interface FalModel {
  readonly descriptor: ModelDescriptor;
  readonly endpoint: FalVideoEndpoints | FalImageEndpoint;
}

const VIDEO_TAGS = ['fal', 'video', 'text-to-video', 'image-to-video'];

/** fal-hosted models: catalog data, capabilities, provider parameters and prices (micro-USD) from fal's model pages. */
export const FAL_MODELS: readonly FalModel[] = [
  {
    endpoint: {
      kind: 'video',
      textToVideo: 'fal-ai/kling-video/v2.1/master/text-to-video',
      imageToVideo: 'fal-ai/kling-video/v2.1/master/image-to-video',
      durationFormat: 'plain',
      sendsAspectRatio: true,
      sendsResolution: false,
    },
    descriptor: {
      ...common,
      id: 'fal.kling-v2.1-master',
      name: 'Kling 2.1 Master (fal)',
      modality: 'video',
      description: 'Kuaishou Kling 2.1 Master on fal: 1080p text-to-video or image-to-video, 5 or 10 seconds.',
      tags: [...VIDEO_TAGS, 'kling'],
      isPopular: true,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [5, 10],
        resolutions: ['1080p'],
        aspectRatios: ['16:9', '9:16', '1:1'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({
        negative_prompt: z.string().max(2500).optional(),
        cfg_scale: z.number().min(0).max(1).optional(),
      }),
      // $1.40 for 5 s, $0.28 for each further second: $0.28 per second.
      pricing: { kind: 'per_second', perSecond: { '1080p': 280_000 } },
      priceSource: { url: 'https://fal.ai/models/fal-ai/kling-video/v2.1/master/text-to-video/llms.txt', retrievedOn: RETRIEVED, note: '"For 5s video your request will cost $1.40. For every additional second you will be charged $0.28."' },
      pollIntervalSeconds: 10,
    },
  },
  {
    endpoint: {
      kind: 'video',
      textToVideo: 'fal-ai/veo3/fast',
      imageToVideo: 'fal-ai/veo3/fast/image-to-video',
      durationFormat: 'seconds',
      sendsAspectRatio: true,
      sendsResolution: true,
    },
    descriptor: {
      ...common,
      id: 'fal.veo3-fast',
      name: 'Veo 3 Fast (fal)',
      modality: 'video',
      description: "Google Veo 3 Fast on fal: 720p or 1080p video with optional generated audio, 4 to 8 seconds.",
      tags: [...VIDEO_TAGS, 'veo', 'audio'],
      isPopular: true,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [8, 4, 6],
        resolutions: ['720p', '1080p'],
        aspectRatios: ['16:9', '9:16'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({
        generate_audio: z.boolean().default(true),
        negative_prompt: z.string().optional(),
        enhance_prompt: z.boolean().optional(),
        seed: z.number().int().optional(),
      }),
      // $0.15 per second with audio, $0.10 without.
      pricing: { kind: 'per_second', perSecond: { '720p': 150_000, '1080p': 150_000 }, variants: [{ when: { generate_audio: false }, price: 100_000 }] },
      priceSource: { url: 'https://fal.ai/models/fal-ai/veo3/fast/llms.txt', retrievedOn: RETRIEVED, note: '"For every second of video you generated, you will be charged $0.10 (audio off) or $0.15 (audio on)."' },
      pollIntervalSeconds: 10,
    },
  },
  {
    endpoint: {
      kind: 'video',
      textToVideo: 'fal-ai/minimax/hailuo-02/standard/text-to-video',
      imageToVideo: 'fal-ai/minimax/hailuo-02/standard/image-to-video',
      durationFormat: 'plain',
      sendsAspectRatio: false,
      sendsResolution: false,
    },
    descriptor: {
      ...common,
      id: 'fal.hailuo-02-standard',
      name: 'MiniMax Hailuo 02 Standard (fal)',
      modality: 'video',
      description: 'MiniMax Hailuo 02 Standard on fal: 768p 16:9 video, 6 or 10 seconds, with prompt optimizer.',
      tags: [...VIDEO_TAGS, 'minimax', 'hailuo'],
      isPopular: false,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [6, 10],
        resolutions: ['768p'],
        aspectRatios: ['16:9'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({ prompt_optimizer: z.boolean().default(true) }),
      pricing: { kind: 'per_second', perSecond: { '768p': 45_000 } },
      priceSource: {
        url: 'https://fal.ai/models/fal-ai/minimax/hailuo-02/standard/text-to-video',
        retrievedOn: RETRIEVED,
        note: 'The standard page was not in the search corpus: $0.045/s is from third-party comparisons quoting fal ($0.45 per 10 s video); the Pro page says $0.08/s. Check before production.',
      },
      pollIntervalSeconds: 10,
    },
  },
  {
    endpoint: { kind: 'image', modelPath: 'fal-ai/flux/dev' },
    descriptor: {
      ...common,
      id: 'fal.flux-dev',
      name: 'FLUX.1 [dev] (fal)',
      modality: 'image',
      description: 'Black Forest Labs FLUX.1 [dev] on fal: 12B text-to-image, billed per megapixel.',
      tags: ['fal', 'image', 'text-to-image', 'flux'],
      isPopular: true,
      capabilities: {
        modality: 'image',
        promptRequired: true,
        aspectRatios: ['1:1', '16:9', '9:16', '4:3', '3:4'],
        sizes: { kind: 'range', minSide: 256, maxSide: 2048, defaultLongSide: 1024, multipleOf: 16 },
        supportsNegativePrompt: false,
        supportsSeed: true,
        maxReferenceImages: 0,
        maxImages: 4,
      },
      providerParams: z.strictObject({
        guidance_scale: z.number().min(1).max(20).optional(),
        num_inference_steps: z.number().int().min(1).max(50).optional(),
        enable_safety_checker: z.boolean().optional(),
        output_format: z.enum(['jpeg', 'png']).optional(),
      }),
      pricing: { kind: 'per_image', perImage: 25_000, perMegapixel: 25_000 },
      priceSource: { url: 'https://fal.ai/models/fal-ai/flux/dev', retrievedOn: RETRIEVED, note: '$0.025 per megapixel (rounded up to the next megapixel)' },
      pollIntervalSeconds: 3,
    },
  },
  {
    endpoint: { kind: 'image', modelPath: 'fal-ai/flux/schnell' },
    descriptor: {
      ...common,
      id: 'fal.flux-schnell',
      name: 'FLUX.1 [schnell] (fal)',
      modality: 'image',
      description: 'Black Forest Labs FLUX.1 [schnell] on fal: fast 1-4 step text-to-image, billed per megapixel.',
      tags: ['fal', 'image', 'text-to-image', 'flux', 'fast'],
      isPopular: true,
      capabilities: {
        modality: 'image',
        promptRequired: true,
        aspectRatios: ['1:1', '16:9', '9:16', '4:3', '3:4'],
        sizes: { kind: 'range', minSide: 256, maxSide: 2048, defaultLongSide: 1024, multipleOf: 16 },
        supportsNegativePrompt: false,
        supportsSeed: true,
        maxReferenceImages: 0,
        maxImages: 4,
      },
      providerParams: z.strictObject({
        num_inference_steps: z.number().int().min(1).max(12).optional(),
        enable_safety_checker: z.boolean().optional(),
        output_format: z.enum(['jpeg', 'png']).optional(),
      }),
      pricing: { kind: 'per_image', perImage: 3_000, perMegapixel: 3_000 },
      priceSource: { url: 'https://fal.ai/models/fal-ai/flux/schnell', retrievedOn: RETRIEVED, note: '$0.003 per megapixel (rounded up to the next megapixel)' },
      pollIntervalSeconds: 3,
    },
  },
];
