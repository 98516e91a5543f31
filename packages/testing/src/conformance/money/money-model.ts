import { ADAPTER_SPECIFICATION_VERSION, type ModelDescriptor, type ProviderAdapter } from '@gengate/core/adapter';

/** The one model the money contract submits to: 2 credits an image (20,000 micro-USD, no markup), 1 to 4 images a task. */
export const CONTRACT_MODEL: ModelDescriptor = {
  id: 'contract.image',
  name: 'Money contract image',
  provider: 'contract',
  isActive: true,
  modality: 'image',
  description: 'A fixed-price image model for the intake and completion contract; it is never called.',
  tags: ['contract'],
  isPopular: false,
  capabilities: {
    modality: 'image',
    promptRequired: true,
    aspectRatios: ['1:1'],
    sizes: { kind: 'range', minSide: 16, maxSide: 2_048, defaultLongSide: 512 },
    supportsNegativePrompt: false,
    supportsSeed: false,
    maxReferenceImages: 0,
    maxImages: 4,
  },
  pricing: { kind: 'per_image', perImage: 20_000, perLargeImage: 20_000 },
  pollIntervalSeconds: 1,
};

/** Micro-credits held for a task of `images` images of CONTRACT_MODEL. */
export const quoteOf = (images: number): number => images * 2_000_000;

/**
 * The adapter serving CONTRACT_MODEL. Give it to the implementation under test: the contract drives the
 * use cases and ports (intake, completion, failure, cancel), never a worker, so `generate` is never called.
 */
export function contractAdapter(): ProviderAdapter {
  return {
    specificationVersion: ADAPTER_SPECIFICATION_VERSION,
    providerId: 'contract',
    models: [CONTRACT_MODEL],
    isLongRunning: () => false,
    generate: () => Promise.reject(new Error('the money contract never runs a generation')),
  };
}
