import {
  ADAPTER_SPECIFICATION_VERSION,
  createMemoryStores,
  MemoryBlobStore,
  UpstreamError,
  type Gengate,
  type GengateCoreConfig,
  type ModelDescriptor,
  type ProviderAdapter,
} from '../../src/internal.js';

export const model: ModelDescriptor = {
  id: 'test.image',
  name: 'Test image',
  provider: 'test',
  modality: 'image',
  description: 'An in-process image model for container tests.',
  tags: [],
  isPopular: false,
  isActive: true,
  capabilities: {
    modality: 'image',
    promptRequired: true,
    aspectRatios: ['1:1'],
    sizes: { kind: 'fixed', options: [{ width: 1, height: 1 }] },
    supportsNegativePrompt: false,
    supportsSeed: false,
    maxReferenceImages: 0,
  },
  pricing: { kind: 'per_image', perImage: 10_000 },
};

/** Succeeds, or refuses every prompt as invalid input (a non-retryable failure). */
export const adapter = (fails: boolean): ProviderAdapter => ({
  specificationVersion: ADAPTER_SPECIFICATION_VERSION,
  providerId: 'test',
  models: [model],
  isLongRunning: () => false,
  generate: async () => {
    if (fails) throw new UpstreamError('the prompt is not acceptable', { kind: 'invalid_input' });
    return { files: [{ kind: 'bytes', data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }] };
  },
});

export function config(fails: boolean): GengateCoreConfig {
  const { scope, uow } = createMemoryStores();
  return {
    adapters: [adapter(fails)],
    stores: scope,
    unitOfWork: uow,
    blobStore: new MemoryBlobStore(),
    resultUrls: { urlFor: (key) => `http://gengate.test/api/v1/files/${key}` },
    paymentProcessor: { id: 'manual', createCheckout: async () => ({ checkoutUrl: null, externalRef: null }) },
  };
}

/** Submits one task and runs its generation job, as the worker does; returns the task as the API shows it. */
export async function runOneTask(gengate: Gengate, modelId: string = model.id) {
  const { api_key } = await gengate.admin.createUser({ email: `c-${crypto.randomUUID()}@example.com`, credits: 100 });
  const auth = await gengate.authenticate.execute(api_key, null);
  const { task_id } = await gengate.submitRun.execute(auth, modelId, { prompt: 'a red square' });
  await gengate.executeTask.runGeneration(task_id, new AbortController().signal);
  return gengate.getTask.execute(auth, task_id);
}

