import {
  createGengate,
  createMemoryStores,
  MemoryBlobStore,
  type Gengate,
  type MemoryDatabase,
  type PaymentProcessor,
  type ProviderAdapter,
} from '@gengate/core';

export interface MemoryGengateOptions {
  /** The providers (this package does not depend on @gengate/adapters: pass `new SandboxAdapter(...)`). Default none. */
  readonly adapters?: readonly ProviderAdapter[];
  /** Base of result URLs: `${baseUrl}/api/v1/files/<task_id>/<file>`. Default `http://gengate.test`. */
  readonly baseUrl?: string;
}

export interface MemoryGengate {
  readonly gengate: Gengate;
  /** The rows behind the stores: count tasks, transactions, holds and jobs in assertions. */
  readonly db: MemoryDatabase;
  /** Where the worker stores result files (give it to the router as its blobStore). */
  readonly blobs: MemoryBlobStore;
  /**
   * Runs every queued `generate` job to its end (as the last attempt), including jobs queued while
   * draining. Other jobs (callbacks, alert mails) stay in `db.jobs`.
   */
  drainJobs(): Promise<void>;
}

export const MEMORY_GENGATE_BASE_URL = 'http://gengate.test';

/** A manual processor: the purchase stays pending until an operator completes it. */
const manualProcessor: PaymentProcessor = {
  id: 'manual',
  createCheckout: async () => ({ checkoutUrl: null, externalRef: null }),
};

/** The whole core over the in-memory stores: the use cases without a database or a queue. */
export function createMemoryGengate(opts: MemoryGengateOptions = {}): MemoryGengate {
  const baseUrl = (opts.baseUrl ?? MEMORY_GENGATE_BASE_URL).replace(/\/+$/, '');
  const { db, scope, uow } = createMemoryStores();
  const blobs = new MemoryBlobStore();
  const gengate = createGengate({
    adapters: opts.adapters ?? [],
    stores: scope,
    unitOfWork: uow,
    blobStore: blobs,
    resultUrls: { urlFor: (key) => `${baseUrl}/api/v1/files/${key}` },
    paymentProcessor: manualProcessor,
  });

  async function drainJobs(): Promise<void> {
    for (;;) {
      const index = db.jobs.findIndex((job) => job.queue === 'generate');
      if (index < 0) return;
      const [job] = db.jobs.splice(index, 1);
      const taskId = job?.payload.taskId;
      if (taskId === undefined) continue;
      await gengate.executeTask.execute(taskId, new AbortController().signal, { isLast: true });
    }
  }

  return { gengate, db, blobs, drainJobs };
}
