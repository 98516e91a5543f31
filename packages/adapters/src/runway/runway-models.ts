import type { ModelDescriptor } from '@gengate/core/adapter';
import { z } from 'zod';

const RETRIEVED = '2026-11-23';
/** Runway bills API credits at $0.01 each: a model's credits per second times 10,000 micro-USD. */
const PER_CREDIT = 10_000;
const PRICE_PAGE = 'https://docs.dev.runwayml.com/guides/pricing/';
const common = { provider: 'runway', isActive: true } as const;

export interface RunwayModel {
  readonly descriptor: ModelDescriptor;
  /** The `model` value Runway's API takes. */
  readonly runwayModel: string;
  /** Endpoints the model serves: image_to_video needs a first frame, text_to_video takes none. */
  readonly endpoints: { readonly image: boolean; readonly text: boolean };
}

const moderation = { public_figure_threshold: z.enum(['auto', 'low']).optional() };

/** Runway's own API: models, ratios, durations and prices in credits per second (Runway's developer docs). */
export const RUNWAY_MODELS: readonly RunwayModel[] = [
  {
    runwayModel: 'gen4_turbo',
    endpoints: { image: true, text: false },
    descriptor: {
      ...common,
      id: 'runway.gen4-turbo',
      name: 'Runway Gen-4 Turbo',
      modality: 'video',
      description: 'Runway Gen-4 Turbo: fast 720p image-to-video (needs a first frame in video_params.image_urls), 5 or 10 seconds.',
      tags: ['runway', 'video', 'image-to-video'],
      isPopular: true,
      capabilities: {
        modality: 'video',
        promptRequired: false,
        durations: [5, 10],
        resolutions: ['720p'],
        aspectRatios: ['16:9', '9:16', '4:3', '3:4', '1:1', '21:9'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({ seed: z.number().int().min(0).max(4_294_967_295).optional(), ...moderation }),
      pricing: { kind: 'per_second', perSecond: { '720p': 5 * PER_CREDIT } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED, note: 'gen4_turbo: 5 credits per second; 1 credit = $0.01 (as listed in Runway\'s API reference, runwayml/skills rw-api-reference).' },
      pollIntervalSeconds: 10,
    },
  },
  {
    runwayModel: 'gen4.5',
    endpoints: { image: true, text: true },
    descriptor: {
      ...common,
      id: 'runway.gen4.5',
      name: 'Runway Gen-4.5',
      modality: 'video',
      description: "Runway Gen-4.5: Runway's flagship text-to-video and image-to-video, 720p, 2 to 10 seconds.",
      tags: ['runway', 'video', 'text-to-video', 'image-to-video'],
      isPopular: true,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [5, 2, 3, 4, 6, 7, 8, 9, 10],
        resolutions: ['720p'],
        aspectRatios: ['16:9', '9:16'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      providerParams: z.strictObject({ seed: z.number().int().min(0).max(4_294_967_295).optional(), ...moderation }),
      pricing: { kind: 'per_second', perSecond: { '720p': 12 * PER_CREDIT } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED, note: 'gen4.5: 12 credits per second; 1 credit = $0.01.' },
      pollIntervalSeconds: 10,
    },
  },
  {
    runwayModel: 'veo3',
    endpoints: { image: true, text: true },
    descriptor: {
      ...common,
      id: 'runway.veo3',
      name: 'Veo 3 (Runway)',
      modality: 'video',
      description: 'Google Veo 3 through Runway: 8-second video with audio, 720p or 1080p (1080p for text-to-video).',
      tags: ['runway', 'video', 'text-to-video', 'image-to-video', 'veo', 'audio'],
      isPopular: false,
      capabilities: {
        modality: 'video',
        promptRequired: true,
        durations: [8],
        resolutions: ['720p', '1080p'],
        aspectRatios: ['16:9', '9:16'],
        maxReferenceImages: 1,
        maxReferenceVideos: 0,
        supportsWatermark: false,
        supportsMultiShots: false,
        supportsTranslation: false,
      },
      pricing: { kind: 'per_second', perSecond: { '720p': 40 * PER_CREDIT, '1080p': 40 * PER_CREDIT } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED, note: 'veo3: 40 credits per second; 1 credit = $0.01.' },
      pollIntervalSeconds: 10,
    },
  },
];
