import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createSandboxAdapter } from '@gengate/adapters';
import { createGengate, SendAlertMail, type Gengate, type PaymentProcessor, type ProviderAdapter } from '@gengate/core';
import express from 'express';
import type { Logger } from 'pino';
import { createGengateRouter } from '../http/create-router.js';
import { createRequestScopedLogger } from '../http/request-log-scope.js';
import { createPgKeyRateLimiter } from '../limits/create-rate-limiters.js';
import { createBoss } from '../jobs/queues.js';
import { startGenerationWorker } from '../jobs/generation-worker.js';
import { CallbackRepository } from '../callbacks/callback-repository.js';
import { startAlertMailWorker } from '../jobs/alert-mail-worker.js';
import { startCallbackWorker } from '../jobs/callback-worker.js';
import { createMailer } from '../mail/create-mailer.js';
import { ManualPaymentProcessor } from '../payments/manual-processor.js';
import { createStripeClient, StripePaymentProcessor } from '../payments/stripe-processor.js';
import { createPgStores } from '../postgres/pg-unit-of-work.js';
import { LocalBlobStore } from '../storage/local-blob-store.js';
import { createResultUrlResolver } from '../storage/result-urls.js';
import type { GengateConfig } from './config.js';
import { openDatabase } from './database.js';

export interface RunningServer {
  /** Base URL of the API root, e.g. http://127.0.0.1:3000 (the API is under /api/v1). */
  readonly url: string;
  readonly port: number;
  readonly gengate: Gengate;
  readonly databaseUrl: string;
  /** Stops taking requests, lets running ones finish within the grace period, stops the worker, closes the database. */
  close(): Promise<void>;
}

export interface StartServerOptions {
  readonly logger: Logger;
  /** Adapters to serve; default: the offline sandbox. */
  readonly adapters?: readonly ProviderAdapter[];
}

function defaultAdapters(config: GengateConfig): ProviderAdapter[] {
  const latency = config.sandboxLatencyMs;
  const latencyMs = latency === null ? {} : { latencyMs: { chat: latency, image: latency, video: latency } };
  return [createSandboxAdapter({ ...latencyMs, latencyJitterMs: config.sandboxLatencyJitterMs })];
}

function paymentsFor(
  config: GengateConfig,
  baseUrl: () => string,
): { processor: PaymentProcessor; stripeWebhook: { stripe: ReturnType<typeof createStripeClient>; webhookSecret: string } | null } {
  const p = config.payments;
  if (p.processor === 'manual') return { processor: new ManualPaymentProcessor(), stripeWebhook: null };
  const stripe = createStripeClient({ secretKey: p.secretKey, apiUrl: p.apiUrl });
  const processor = new StripePaymentProcessor(stripe, {
    get successUrl() {
      return p.successUrl ?? `${baseUrl()}/api/v1/billing/balance?checkout=success`;
    },
    get cancelUrl() {
      return p.cancelUrl ?? `${baseUrl()}/api/v1/billing/balance?checkout=cancelled`;
    },
  });
  return { processor, stripeWebhook: { stripe, webhookSecret: p.webhookSecret } };
}

/** The standalone host: database, queue, worker, HTTP. */
export async function startServer(config: GengateConfig, options: StartServerOptions): Promise<RunningServer> {
  const { logger } = options;
  const db = await openDatabase(config, logger);
  const boss = await createBoss({
    connectionString: db.url,
    logger,
    callbackRetryDelaySeconds: config.callbacks.retryDelaySeconds,
    // A generation job outlives the longest deadline, so the deadline (not pg-boss) ends a slow task.
    generateExpireSeconds: Math.max(config.deadlineSeconds.chat, config.deadlineSeconds.image, config.deadlineSeconds.video) + 300,
  });
  const callbacks = new CallbackRepository(db.pool);
  const { stores, unitOfWork } = createPgStores(db.pool, boss);
  let baseUrl = config.publicUrl ?? '';
  const blobStore = new LocalBlobStore(join(config.dataDir, 'files'));
  const resultUrls = createResultUrlResolver(() => baseUrl);
  const payments = paymentsFor(config, () => baseUrl);
  const gengate = createGengate({
    adapters: options.adapters ?? defaultAdapters(config),
    stores,
    unitOfWork,
    blobStore,
    resultUrls,
    paymentProcessor: payments.processor,
    logger: createRequestScopedLogger(logger),
    execution: {
      deadlineMs: {
        chat: config.deadlineSeconds.chat * 1000,
        image: config.deadlineSeconds.image * 1000,
        video: config.deadlineSeconds.video * 1000,
      },
    },
  });

  const app = express();
  app.disable('x-powered-by');
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const rateLimiter = createPgKeyRateLimiter(db.pool);
  app.use(
    '/api/v1',
    createGengateRouter({
      gengate,
      blobStore,
      logger,
      trustProxy: [...config.trustProxy],
      rateLimiter,
      callbacks,
      ...(payments.stripeWebhook ? { stripeWebhook: payments.stripeWebhook } : {}),
    }),
  );

  const server: Server = await new Promise((resolve, reject) => {
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const port = (server.address() as AddressInfo).port;
  if (!config.publicUrl) baseUrl = `http://${config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host}:${port}`;

  const worker = config.runWorker ? await startGenerationWorker(boss, gengate, { concurrency: config.workerConcurrency, logger }) : null;
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, logger });
  const callbackWorker = config.runWorker
    ? await startCallbackWorker(
        boss,
        { tasks: stores.tasks, callbacks, urls: resultUrls },
        { allowPrivate: config.callbacks.allowPrivate, timeoutMs: config.callbacks.timeoutMs, logger },
      )
    : null;
  const mailWorker = config.runWorker ? await startAlertMailWorker(boss, new SendAlertMail(stores.alerts, stores.users, mailer), logger) : null;
  logger.info({ url: baseUrl, database: db.where, worker: worker !== null }, `gengate listening on ${baseUrl}`);

  let closing: Promise<void> | null = null;
  return {
    url: baseUrl,
    port,
    gengate,
    databaseUrl: db.url,
    close() {
      closing ??= (async () => {
        const drained = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
        await drained;
        clearTimeout(grace);
        await worker?.stop({ graceMs: config.shutdownGraceMs });
        await mailWorker?.stop();
        await callbackWorker?.stop();
        await boss.stop({ graceful: true, timeout: config.shutdownGraceMs });
        await db.close();
        logger.info('gengate stopped');
      })();
      return closing;
    },
  };
}
