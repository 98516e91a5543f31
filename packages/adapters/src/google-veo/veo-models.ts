import type { ModelDescriptor, VideoCapabilities } from '@gengate/core/adapter';
import { z } from 'zod';

const RETRIEVED = '2026-11-23';
const PRICE_PAGE = 'https://ai.google.dev/gemini-api/docs/pricing';
const common = { provider: 'google', isActive: true } as const;

export interface VeoModel {
  readonly descriptor: ModelDescriptor;
  /** The Gemini API model id (`veo-3.0-generate-001`). */
  readonly googleModel: string;
}

const veoParams = z.strictObject({
  negative_prompt: z.string().max(2000).optional(),
  person_generation: z.enum(['dont_allow', 'allow_adult', 'allow_all']).optional(),
});

const veo3Caps: VideoCapabilities = {
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
};

/** Veo on the Gemini API (provider `google`; the lead merges these into the one Google adapter). */
export const VEO_MODELS: readonly VeoModel[] = [
  {
    googleModel: 'veo-3.0-generate-001',
    descriptor: {
      ...common,
      id: 'google.veo-3',
      name: 'Veo 3',
      modality: 'video',
      description: "Google Veo 3 on the Gemini API: 8-second 720p or 1080p video with natively generated audio; text or first-frame image.",
      tags: ['google', 'veo', 'video', 'text-to-video', 'image-to-video', 'audio'],
      isPopular: true,
      capabilities: veo3Caps,
      providerParams: veoParams,
      pricing: { kind: 'per_second', perSecond: { '720p': 400_000, '1080p': 400_000 } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED, note: 'Veo 3 (with audio): $0.40 per second. The price page itself was not in the search corpus; the figure is Google\'s published rate as quoted by secondary sources.' },
      pollIntervalSeconds: 10,
    },
  },
  {
    googleModel: 'veo-3.0-fast-generate-001',
    descriptor: {
      ...common,
      id: 'google.veo-3-fast',
      name: 'Veo 3 Fast',
      modality: 'video',
      description: 'Google Veo 3 Fast on the Gemini API: faster, cheaper 8-second video with audio, 720p or 1080p.',
      tags: ['google', 'veo', 'video', 'text-to-video', 'image-to-video', 'audio', 'fast'],
      isPopular: true,
      capabilities: veo3Caps,
      providerParams: veoParams,
      pricing: { kind: 'per_second', perSecond: { '720p': 150_000, '1080p': 150_000 } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED, note: 'Veo 3 Fast (with audio): $0.15 per second; same caveat as Veo 3.' },
      pollIntervalSeconds: 10,
    },
  },
  {
    googleModel: 'veo-2.0-generate-001',
    descriptor: {
      ...common,
      id: 'google.veo-2',
      name: 'Veo 2',
      modality: 'video',
      description: 'Google Veo 2 on the Gemini API: 720p silent video, 5 to 8 seconds; text or first-frame image.',
      tags: ['google', 'veo', 'video', 'text-to-video', 'image-to-video'],
      isPopular: false,
      capabilities: { ...veo3Caps, durations: [5, 6, 7, 8], resolutions: ['720p'] },
      providerParams: veoParams,
      pricing: { kind: 'per_second', perSecond: { '720p': 350_000 } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED, note: 'Veo 2: $0.35 per second; same caveat as Veo 3.' },
      pollIntervalSeconds: 10,
    },
  },
];
