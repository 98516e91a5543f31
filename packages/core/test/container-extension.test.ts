import { describe, expect, it } from 'vitest';
import {
  ADAPTER_SPECIFICATION_VERSION,
  createGengate,
  createGengateContainer,
  createMemoryStores,
  FailTask,
  MemoryBlobStore,
  resolveGengate,
  TOKENS,
  UpstreamError,
  type GengateCoreConfig,
  type ModelDescriptor,
  type ProviderAdapter,
  type UpstreamMetadata,
} from '../src/index.js';

const model: ModelDescriptor = {
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
const adapter = (fails: boolean): ProviderAdapter => ({
  specificationVersion: ADAPTER_SPECIFICATION_VERSION,
  providerId: 'test',
  models: [model],
  isLongRunning: () => false,
  generate: async () => {
    if (fails) throw new UpstreamError('the prompt is not acceptable', { kind: 'invalid_input' });
    return { files: [{ kind: 'bytes', data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' }] };
  },
});

function config(fails: boolean): GengateCoreConfig {
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
async function runOneTask(gengate: ReturnType<typeof createGengate>) {
  const { api_key } = await gengate.admin.createUser({ email: `c-${crypto.randomUUID()}@example.com`, credits: 100 });
  const auth = await gengate.authenticate.execute(api_key, null);
  const { task_id } = await gengate.submitRun.execute(auth, model.id, { prompt: 'a red square' });
  await gengate.executeTask.runGeneration(task_id, new AbortController().signal);
  return gengate.getTask.execute(auth, task_id);
}

describe('the container is the extension point', () => {
  it('a FailTask rebound before anything resolves is the one ExecuteTask uses', async () => {
    const failures: string[] = [];
    class AnnotatedFailTask extends FailTask {
      override execute(taskId: string, errorMessage: string, metadata?: UpstreamMetadata): Promise<boolean> {
        failures.push(taskId);
        return super.execute(taskId, `${errorMessage} [seen by the embedder]`, metadata);
      }
    }
    const gengate = createGengate(config(true), {
      configure: (c) => {
        c.rebind(TOKENS.FailTask)
          .toDynamicValue((ctx) => new AnnotatedFailTask(ctx.get(TOKENS.UnitOfWork), ctx.get(TOKENS.Scheduling)))
          .inSingletonScope();
      },
    });
    const task = await runOneTask(gengate);
    expect(task.status).toBe('fail');
    expect(task.error_message).toMatch(/the prompt is not acceptable.*\[seen by the embedder\]$/);
    expect(failures).toEqual([task.task_id]);
    expect(gengate.failTask).toBeInstanceOf(AnnotatedFailTask);
  });

  it('a rebound Clock port reaches the worker: a clock past the deadline ends the task in fail instead of success', async () => {
    const plain = await runOneTask(createGengate(config(false)));
    expect(plain.status).toBe('success');

    const container = createGengateContainer(config(false));
    let calls = 0;
    // Each reading is an hour later than the last: the generation's deadline has passed when it is checked.
    container.rebind(TOKENS.Clock).toConstantValue({ now: () => new Date(Date.UTC(2030, 0, 1) + calls++ * 3_600_000) });
    const late = await runOneTask(resolveGengate(container));
    expect(late.status).toBe('fail');
    expect(late.error_message).toMatch(/deadline|time/i);
    expect(calls).toBeGreaterThan(0);
  });

  it('resolves nothing until a use case is first used', () => {
    const container = createGengateContainer(config(false));
    let built = 0;
    container.rebind(TOKENS.Registry).toDynamicValue(() => {
      built += 1;
      throw new Error('resolved too early');
    });
    const gengate = resolveGengate(container);
    expect(built).toBe(0);
    expect(() => gengate.catalog).toThrow('resolved too early');
  });
});
