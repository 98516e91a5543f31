/*
 * The data file of the Luma Dream Machine adapter: models, capabilities, provider parameters and prices.
 * Nothing here runs: gengate reads it to publish the catalog, validate requests before any credit is held,
 * and quote (prices are the UPSTREAM cost in integer micro-USD per second of video, by resolution).
 *
 * Sources (retrieved 2026-11-25):
 * - request bodies: Luma's API reference (https://docs.lumalabs.ai/reference), `POST /dream-machine/v1/generations`
 *   {prompt, model: ray-2 | ray-flash-2, resolution: 540p | 720p | 1080p, duration: 5s | 9s, aspect_ratio, loop,
 *   keyframes.frame0 {type: image, url}};
 * - prices: Luma bills per pixel generated; the figures below are an EXAMPLE's (about $0.08 per second of 720p Ray 2,
 *   as listed at https://plans.apis.io/plans/luma-ai/luma-ai-plans-pricing/, 540p at half and 1080p at twice that,
 *   Ray Flash 2 at a third). An operator serving Luma takes the prices from Luma's own price page.
 */
import type { ModelDescriptor, VideoCapabilities } from '@gengate/core/adapter';
import { z } from 'zod';

const PRICE_PAGE = 'https://plans.apis.io/plans/luma-ai/luma-ai-plans-pricing/';
const RETRIEVED_ON = '2026-11-25';

/** Luma's own parameters, sent under their own names. Strict: an unknown key is a 400 before any hold. */
const lumaParams = z.strictObject({ loop: z.boolean().optional() });

const capabilities: VideoCapabilities = {
  modality: 'video',
  promptRequired: true,
  durations: [5, 9],
  resolutions: ['720p', '540p', '1080p'],
  aspectRatios: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9', '9:21'],
  maxReferenceImages: 1,
  maxReferenceVideos: 0,
  supportsWatermark: false,
  supportsMultiShots: false,
  supportsTranslation: false,
};

/** A catalog entry plus the `model` value Luma's API takes. */
export interface LumaModel {
  readonly lumaModel: string;
  readonly descriptor: ModelDescriptor;
}

function ray(lumaModel: string, name: string, perSecond720p: number, description: string): LumaModel {
  return {
    lumaModel,
    descriptor: {
      id: `luma.${lumaModel}`,
      name,
      provider: 'luma',
      modality: 'video',
      description,
      tags: ['luma', 'video', 'text-to-video', 'image-to-video'],
      isPopular: false,
      isActive: true,
      capabilities,
      providerParams: lumaParams,
      pricing: { kind: 'per_second', perSecond: { '540p': perSecond720p / 2, '720p': perSecond720p, '1080p': perSecond720p * 2 } },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED_ON, note: `${name}: example figures (see the header of luma-models.ts).` },
      pollIntervalSeconds: 3,
    },
  };
}

export const LUMA_MODELS: readonly LumaModel[] = [
  ray('ray-2', 'Luma Ray 2', 80_000, 'Luma Dream Machine Ray 2: text-to-video or image-to-video (one first frame), 5 or 9 seconds, 540p to 1080p.'),
  ray('ray-flash-2', 'Luma Ray Flash 2', 26_000, 'Luma Dream Machine Ray Flash 2: faster and cheaper Ray 2, 5 or 9 seconds, 540p to 1080p.'),
];
