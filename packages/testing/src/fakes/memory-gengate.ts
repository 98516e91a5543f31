import { setTimeout as sleep } from 'node:timers/promises';
import {
  createGengate,
  createMemoryStores,
  MemoryBlobStore,
  type CreateGengateOptions,
  type Gengate,
  type MemoryDatabase,
  type PaymentProcessor,
  type AcceptedProviderAdapter,
  type InvitationMail,
  type InvitationMailer,
} from '@gengate/core';

export interface MemoryGengateOptions {
  /** The providers (this package does not depend on @gengate/adapters: pass `new SandboxAdapter(...)`). Default none. */
  readonly adapters?: readonly AcceptedProviderAdapter[];
  /** Base of result URLs: `${baseUrl}/api/v1/files/<task_id>/<file>`. Default `http://gengate.test`. */
  readonly baseUrl?: string;
  /** Rebinds tokens before anything resolves (see createGengate's `configure`). */
  readonly configure?: CreateGengateOptions['configure'];
  /** Sends invitation mails; default: kept in `invitationMails` (nothing sent). */
  readonly invitationMailer?: InvitationMailer;
}

export interface MemoryGengate {
  readonly gengate: Gengate;
  /** The rows behind the stores: count tasks, transactions, holds and jobs in assertions. */
  readonly db: MemoryDatabase;
  /** Where the worker stores result files (give it to the router as its blobStore). */
  readonly blobs: MemoryBlobStore;
  /** The invitation mails sent (with their tokens), unless `invitationMailer` was given. */
  readonly invitationMails: readonly InvitationMail[];
  /**
   * Runs every queued generation and status-check job, each when its delay has passed, including jobs
   * queued while draining, until none is left. Other jobs (callbacks, alert mails) stay in `db.jobs`.
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
  const { db, scope, uow, usage, organizations } = createMemoryStores();
  const invitationMails: InvitationMail[] = [];
  const blobs = new MemoryBlobStore();
  const gengate = createGengate({
    adapters: opts.adapters ?? [],
    stores: scope,
    unitOfWork: uow,
    blobStore: blobs,
    resultUrls: { urlFor: (key) => `${baseUrl}/api/v1/files/${key}` },
    paymentProcessor: manualProcessor,
    usageReader: usage,
    organizations,
    invitationMailer: opts.invitationMailer ?? { send: async (mail) => void invitationMails.push(mail) },
  }, { configure: opts.configure });

  async function drainJobs(): Promise<void> {
    const running = new AbortController().signal;
    for (;;) {
      const due = db.jobs.filter((job) => job.queue === 'generate' || job.queue === 'status-check').sort((a, b) => a.availableAt - b.availableAt)[0];
      if (!due) return;
      const wait = due.availableAt - Date.now();
      if (wait > 0) await sleep(wait);
      const [job] = db.jobs.splice(db.jobs.indexOf(due), 1);
      const taskId = job?.payload.taskId;
      if (job === undefined || taskId === undefined) continue;
      if (job.queue === 'generate') await gengate.executeTask.runGeneration(taskId, running);
      else await gengate.executeTask.checkStatus(taskId, job.payload.checkNumber ?? 1, running);
    }
  }

  return { gengate, db, blobs, invitationMails, drainJobs };
}
