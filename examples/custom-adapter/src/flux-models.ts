/*
 * The data file of the Black Forest Labs adapter: models, capabilities, provider parameters and prices.
 * Nothing here runs: gengate reads it to publish the catalog, validate requests before any credit is held,
 * and quote (prices are the UPSTREAM cost in integer micro-USD; the operator's markup is applied on top).
 *
 * Sources (retrieved 2026-11-23):
 * - prices: https://docs.bfl.ml/quick_start/pricing (1 credit = $0.01; FLUX1.1 [pro] 4 credits, FLUX.1 Kontext [pro] 4 credits per image);
 * - request bodies: https://docs.bfl.ml/flux_models/flux_1_1_pro and
 *   https://docs.bfl.ml/api-reference/models/edit-or-create-an-image-with-flux-kontext-pro.
 */
import type { ModelDescriptor } from '@gengate/core/adapter';
import { z } from 'zod';

const PRICE_PAGE = 'https://docs.bfl.ml/quick_start/pricing';
const RETRIEVED_ON = '2026-11-23';

/** BFL's own parameters, sent under their own names. Strict: an unknown key is a 400 before any hold. */
const bflParams = z.strictObject({
  prompt_upsampling: z.boolean().optional(),
  safety_tolerance: z.number().int().min(0).max(6).optional(),
  output_format: z.enum(['jpeg', 'png']).optional(),
});

/** A catalog entry plus the BFL endpoint (`POST /v1/{endpoint}`) and how the model takes its size. */
export interface FluxModel {
  readonly endpoint: string;
  /** `dimensions`: width and height in the body; `aspect_ratio`: a ratio string, about one megapixel out. */
  readonly sizing: 'dimensions' | 'aspect_ratio';
  readonly descriptor: ModelDescriptor;
}

export const FLUX_MODELS: readonly FluxModel[] = [
  {
    endpoint: 'flux-pro-1.1',
    sizing: 'dimensions',
    descriptor: {
      id: 'bfl.flux-pro-1.1',
      name: 'FLUX1.1 [pro]',
      provider: 'bfl',
      modality: 'image',
      description: 'Black Forest Labs FLUX1.1 [pro]: fast text-to-image, 256 to 1440 pixels a side (multiples of 32), optional image prompt.',
      tags: ['bfl', 'flux', 'image', 'text-to-image'],
      isPopular: true,
      isActive: true,
      capabilities: {
        modality: 'image',
        promptRequired: true,
        aspectRatios: ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'],
        sizes: { kind: 'range', minSide: 256, maxSide: 1440, defaultLongSide: 1024, multipleOf: 32 },
        supportsNegativePrompt: false,
        supportsSeed: true,
        maxReferenceImages: 1,
      },
      providerParams: bflParams,
      pricing: { kind: 'per_image', perImage: 40_000 },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED_ON, note: 'FLUX1.1 [pro]: 4 credits ($0.04) per image.' },
      pollIntervalSeconds: 1,
    },
  },
  {
    endpoint: 'flux-kontext-pro',
    sizing: 'aspect_ratio',
    descriptor: {
      id: 'bfl.flux-kontext-pro',
      name: 'FLUX.1 Kontext [pro]',
      provider: 'bfl',
      modality: 'image',
      description: 'Black Forest Labs FLUX.1 Kontext [pro]: create or edit an image (one reference image) at about one megapixel, 21:9 to 9:21.',
      tags: ['bfl', 'flux', 'image', 'text-to-image', 'image-editing'],
      isPopular: false,
      isActive: true,
      capabilities: {
        modality: 'image',
        promptRequired: true,
        aspectRatios: ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '21:9', '9:21'],
        sizes: { kind: 'range', minSide: 256, maxSide: 2048, defaultLongSide: 1024, multipleOf: 16 },
        supportsNegativePrompt: false,
        supportsSeed: true,
        maxReferenceImages: 1,
      },
      providerParams: bflParams,
      pricing: { kind: 'per_image', perImage: 40_000 },
      priceSource: { url: PRICE_PAGE, retrievedOn: RETRIEVED_ON, note: 'FLUX.1 Kontext [pro]: 4 credits ($0.04) per image.' },
      pollIntervalSeconds: 1,
    },
  },
];
