import type { ModelDescriptor } from '@gengate/core/adapter';
import { z } from 'zod';

const RETRIEVED = '2026-11-23';
const common = { provider: 'replicate', isActive: true } as const;

export interface ReplicateModel {
  readonly descriptor: ModelDescriptor;
  /** `owner/name` of the official model (run through POST /v1/models/{owner}/{name}/predictions). */
  readonly replicateModel: string;
  readonly kind: 'video' | 'image';
}

const FLUX_RATIOS = ['1:1', '16:9', '9:16', '4:3', '3:4'];
/** FLUX on Replicate takes `aspect_ratio` (about one megapixel), not width/height: the sizes it renders. */
const FLUX_SIZES = [
  { width: 1024, height: 1024 },
  { width: 1360, height: 768 },
  { width: 768, height: 1360 },
  { width: 1184, height: 880 },
  { width: 880, height: 1184 },
];

/** Replicate-hosted models: catalog data, capabilities, provider parameters and prices (micro-USD). */
export const REPLICATE_MODELS: readonly ReplicateModel[] = [
  {
    replicateModel: 'kwaivgi/kling-v2.1',
    kind: 'video',
    descriptor: {
      ...common,
      id: 'replicate.kling-v2.1',
      name: 'Kling 2.1 (Replicate)',
      modality: 'video',
      description: 'Kuaishou Kling 2.1 image-to-video on Replicate: needs a first frame in video_params.image_urls; 720p (standard) or 1080p (pro), 5 or 10 seconds.',
      tags: ['replicate', 'video', 'image-to-video', 'kling'],
      isPopular: true,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [5, 10],
        resolutions: ['720p', '1080p'],
        aspectRatios: ['16:9'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({ negative_prompt: z.string().optional() }),
      pricing: { kind: 'per_second', perSecond: { '720p': 50_000, '1080p': 90_000 } },
      priceSource: {
        url: 'https://replicate.com/kwaivgi/kling-v2.1',
        retrievedOn: RETRIEVED,
        note: "Replicate's model page (not in the search corpus): $0.05/s for standard 720p, $0.09/s for pro 1080p, as last published; check before production.",
      },
      pollIntervalSeconds: 10,
    },
  },
  {
    replicateModel: 'kwaivgi/kling-v2.1-master',
    kind: 'video',
    descriptor: {
      ...common,
      id: 'replicate.kling-v2.1-master',
      name: 'Kling 2.1 Master (Replicate)',
      modality: 'video',
      description: 'Kuaishou Kling 2.1 Master on Replicate: 1080p text-to-video or image-to-video, 5 or 10 seconds (the same model as fal.kling-v2.1-master: one route family).',
      tags: ['replicate', 'video', 'text-to-video', 'image-to-video', 'kling'],
      isPopular: false,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [5, 10],
        resolutions: ['1080p'],
        // The model's input schema: aspect_ratio 16:9, 9:16 or 1:1 (ignored with a start_image).
        aspectRatios: ['16:9', '9:16', '1:1'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({ negative_prompt: z.string().optional() }),
      pricing: { kind: 'per_second', perSecond: { '1080p': 280_000 } },
      priceSource: {
        url: 'https://replicate.com/kwaivgi/kling-v2.1-master',
        retrievedOn: '2026-11-26',
        note: "Replicate's model page (not in the search corpus): $0.28 per second of output video, as last published, the same rate as fal's ($1.40 per 5 s); check before production.",
      },
      pollIntervalSeconds: 10,
    },
  },
  {
    replicateModel: 'minimax/hailuo-02',
    kind: 'video',
    descriptor: {
      ...common,
      id: 'replicate.hailuo-02',
      name: 'MiniMax Hailuo 02 (Replicate)',
      modality: 'video',
      description: 'MiniMax Hailuo 02 on Replicate: text-to-video or first-frame image-to-video, 768p (6 or 10 s) or 1080p (6 s).',
      tags: ['replicate', 'video', 'text-to-video', 'image-to-video', 'minimax', 'hailuo'],
      isPopular: false,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [6, 10],
        resolutions: ['768p', '1080p'],
        aspectRatios: ['16:9'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({ prompt_optimizer: z.boolean().default(true) }),
      pricing: { kind: 'per_second', perSecond: { '768p': 45_000, '1080p': 80_000 } },
      priceSource: {
        url: 'https://replicate.com/minimax/hailuo-02',
        retrievedOn: RETRIEVED,
        note: "Replicate's model page was not in the search corpus: $0.045/s (768p) and $0.08/s (1080p) are MiniMax's standard/pro rates as resold by fal; check before production.",
      },
      pollIntervalSeconds: 10,
    },
  },
  {
    replicateModel: 'black-forest-labs/flux-schnell',
    kind: 'image',
    descriptor: {
      ...common,
      id: 'replicate.flux-schnell',
      name: 'FLUX.1 [schnell] (Replicate)',
      modality: 'image',
      description: 'Black Forest Labs FLUX.1 [schnell] on Replicate: fast text-to-image, about one megapixel per image.',
      tags: ['replicate', 'image', 'text-to-image', 'flux', 'fast'],
      isPopular: true,
      capabilities: {
        modality: 'image',
        promptRequired: true,
        aspectRatios: FLUX_RATIOS,
        sizes: { kind: 'fixed', options: FLUX_SIZES },
        supportsNegativePrompt: false,
        supportsSeed: true,
        maxReferenceImages: 0,
        maxImages: 4,
      },
      providerParams: z.strictObject({
        output_format: z.enum(['webp', 'jpg', 'png']).optional(),
        num_inference_steps: z.number().int().min(1).max(4).optional(),
        go_fast: z.boolean().optional(),
      }),
      pricing: { kind: 'per_image', perImage: 3_000 },
      priceSource: { url: 'https://replicate.com/black-forest-labs/flux-schnell', retrievedOn: RETRIEVED, note: '$0.003 per output image (official model, billed per image).' },
      pollIntervalSeconds: 2,
    },
  },
  {
    replicateModel: 'black-forest-labs/flux-dev',
    kind: 'image',
    descriptor: {
      ...common,
      id: 'replicate.flux-dev',
      name: 'FLUX.1 [dev] (Replicate)',
      modality: 'image',
      description: 'Black Forest Labs FLUX.1 [dev] on Replicate: 12B text-to-image, about one megapixel per image.',
      tags: ['replicate', 'image', 'text-to-image', 'flux'],
      isPopular: true,
      capabilities: {
        modality: 'image',
        promptRequired: true,
        aspectRatios: FLUX_RATIOS,
        sizes: { kind: 'fixed', options: FLUX_SIZES },
        supportsNegativePrompt: false,
        supportsSeed: true,
        maxReferenceImages: 0,
        maxImages: 4,
      },
      providerParams: z.strictObject({
        output_format: z.enum(['webp', 'jpg', 'png']).optional(),
        guidance: z.number().min(0).max(10).optional(),
        num_inference_steps: z.number().int().min(1).max(50).optional(),
        go_fast: z.boolean().optional(),
      }),
      pricing: { kind: 'per_image', perImage: 25_000 },
      priceSource: { url: 'https://replicate.com/black-forest-labs/flux-dev', retrievedOn: RETRIEVED, note: '$0.025 per output image (official model, billed per image).' },
      pollIntervalSeconds: 2,
    },
  },
];
