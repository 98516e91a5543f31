import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, createMemoryStores, MemoryBlobStore, type Gengate, type MemoryDatabase } from '@gengate/core';
import express, { type Express } from 'express';
import pino from 'pino';
import { createGengateRouter } from '../../src/http/create-router.js';
import { ManualPaymentProcessor } from '../../src/payments/manual-processor.js';

export const BASE_URL = 'http://gengate.test';

export interface MemoryApp {
  readonly app: Express;
  readonly gengate: Gengate;
  readonly db: MemoryDatabase;
  /** Runs every queued generation job to its end. */
  drainJobs(): Promise<void>;
  user(credits?: number): Promise<{ userId: string; key: string }>;
}

/** The router over the in-memory stores and the sandbox: the HTTP contract without a database. */
export function createMemoryApp(): MemoryApp {
  const { db, scope, uow } = createMemoryStores();
  const blobStore = new MemoryBlobStore();
  const gengate = createGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 20 }, statusPollIntervalMs: 5 })],
    stores: scope,
    unitOfWork: uow,
    blobStore,
    resultUrls: { urlFor: (key) => `${BASE_URL}/api/v1/files/${key}` },
    paymentProcessor: new ManualPaymentProcessor(),
  });
  const app = express().use('/api/v1', createGengateRouter({ gengate, blobStore, logger: pino({ level: 'silent' }) }));
  let n = 0;
  return {
    app,
    gengate,
    db,
    async drainJobs() {
      for (let job = db.jobs.shift(); job; job = db.jobs.shift()) {
        if (job.queue === 'generate' && job.payload.taskId) {
          await gengate.executeTask.execute(job.payload.taskId, new AbortController().signal, { isLast: true });
        }
      }
    },
    async user(credits = 1000) {
      const u = await gengate.admin.createUser({ email: `user${++n}-${Date.now()}@example.com`, credits });
      return { userId: u.user_id, key: u.api_key };
    },
  };
}
