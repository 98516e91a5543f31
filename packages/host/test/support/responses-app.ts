import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAnthropicAdapter, createOpenAIAdapter, SandboxAdapter } from '@gengate/adapters';
import { createGengate, MemoryBlobStore, type Gengate } from '@gengate/core';
import { parseResponsesSse, startFakeAnthropic, startFakeOpenAI, validateResponsesStream, type FakeUpstream } from '@gengate/testing';
import type { TestDatabase } from '@gengate/testing/host';
import express from 'express';
import { pino } from 'pino';
import { createGengateRouter } from '../../src/http/create-router.js';
import { createOpenAIRouter } from '../../src/http/openai/create-openai-router.js';
import { ManualPaymentProcessor } from '../../src/payments/manual-processor.js';
import { runMigrations } from '../../src/postgres/migrate.js';
import { createPgStores } from '../../src/postgres/pg-unit-of-work.js';
import { DEFAULT_SCHEMA } from '../../src/postgres/schema.js';
import { openPool } from './open-pool.js';
import { createRequestScopedLogger } from '../../src/http/request-log-scope.js';
import { createMigratedTestDatabase } from './migrated-test-database.js';

/** The OpenAI key the in-process gengate sends to the fake (it must never appear in an answer). */
export const UPSTREAM_KEY = 'sk-fake-responses-0123456789abcdef';

export interface ResponsesApp {
  readonly base: string;
  readonly gengate: Gengate;
  readonly fake: FakeUpstream;
  readonly anthropicFake: FakeUpstream;
  /** Every log line the app wrote (level debug and up), as pino's JSON. */
  readonly logLines: readonly string[];
  /** A new user with this many credits: its API key and id. */
  user(credits?: number): Promise<{ key: string; userId: string }>;
  close(): Promise<void>;
}

/**
 * /api/v1 and /v1 of one gengate on PostgreSQL stores, in process, with the sandbox and gengate's OpenAI
 * and Anthropic adapters (pointed at the fake servers): what the /v1/responses and agent-fixture tests drive.
 */
export async function startResponsesApp(): Promise<ResponsesApp> {
  const db: TestDatabase = await createMigratedTestDatabase();
  const fake = await startFakeOpenAI();
  const anthropicFake = await startFakeAnthropic();
  const { pool, close } = openPool(db.url, 10);
  await runMigrations(pool, DEFAULT_SCHEMA);
  const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(pool, null, { schema: DEFAULT_SCHEMA });
  const blobStore = new MemoryBlobStore();
  // Logs are kept, not printed: the fuzz test checks no key ever reaches a log line.
  const logLines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  const gengate = createGengate({
    logger: createRequestScopedLogger(logger),
    adapters: [
      new SandboxAdapter({ latencyMs: { chat: 20, image: 5, video: 30 } }),
      createOpenAIAdapter({ apiKey: UPSTREAM_KEY, baseURL: `${fake.url}/v1` }),
      createAnthropicAdapter({ apiKey: UPSTREAM_KEY, baseURL: `${anthropicFake.url}/v1` }),
    ],
    stores,
    unitOfWork,
    taskIntake,
    taskCompletion,
    blobStore,
    resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
    paymentProcessor: new ManualPaymentProcessor(),
  });
  const app = express()
    .use('/api/v1', createGengateRouter({ gengate, blobStore, logger }))
    .use('/v1', createOpenAIRouter({ gengate, blobStore, logger, keepAliveMs: 60_000, revocationCheckMs: 100 }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  let n = 0;
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    gengate,
    fake,
    anthropicFake,
    logLines,
    async user(credits = 100) {
      const u = await gengate.admin.createUser({ email: `responses-${++n}@example.com`, credits });
      return { key: u.api_key, userId: u.user_id };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await fake.close();
      await anthropicFake.close();
      await close();
      await db.drop();
    },
  };
}

/** Every event of a raw streamed answer, checked against the reference by the testing kit's validator. */
export function checkedStream(body: string): Record<string, unknown>[] {
  const { events, problems } = parseResponsesSse(body);
  const violations = [...problems, ...validateResponsesStream(events)];
  if (violations.length > 0) throw new Error(`the Responses stream breaks the reference:\n${violations.join('\n')}\n${body.slice(0, 2000)}`);
  return events as Record<string, unknown>[];
}
