import { SandboxAdapter } from '@gengate/adapters';
import { createMemoryGengate, type MemoryGengate } from '@gengate/testing';
import express, { type Express } from 'express';
import pino from 'pino';
import { createGengateRouter } from '../../src/http/create-router.js';

export interface MemoryApp extends MemoryGengate {
  readonly app: Express;
  user(credits?: number): Promise<{ userId: string; key: string }>;
}

/** The router over the in-memory stores and a fast sandbox: the HTTP contract without a database. */
export function createMemoryApp(): MemoryApp {
  const memory = createMemoryGengate({
    adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 20 }, statusPollIntervalMs: 5 })],
  });
  const app = express().use('/api/v1', createGengateRouter({ gengate: memory.gengate, blobStore: memory.blobs, logger: pino({ level: 'silent' }) }));
  let n = 0;
  return {
    ...memory,
    app,
    async user(credits = 1000) {
      const u = await memory.gengate.admin.createUser({ email: `user${++n}-${Date.now()}@example.com`, credits });
      return { userId: u.user_id, key: u.api_key };
    },
  };
}
