import { resolveUseCases, type BlobStore, type GengateUseCases, type KeyRateLimiter } from '@gengate/core';
import { Router } from 'express';
import type { Logger } from 'pino';
import { createMemoryKeyRateLimiter } from '../../limits/create-rate-limiters.js';
import { createClientIpResolver } from '../client-ip.js';
import { anthropicRoutes } from '../anthropic/create-anthropic-routes.js';
import { authenticate } from '../middleware/authenticate.js';
import { methodNotAllowed } from '../middleware/error-handler.js';
import { jsonBody } from '../middleware/json-body.js';
import { requestContext } from '../middleware/request-context.js';
import { createResponse } from '../responses/create-response.js';
import { storedResponsesRoutes } from '../responses/stored-responses.js';
import { chatCompletions } from './chat-completions.js';
import { imageGenerations } from './images.js';
import { modelsRoutes } from './models.js';
import { openAIErrorHandler, openAINotFound } from './openai-errors.js';
import { openAIRateLimit } from './openai-rate-limit.js';
import { RevocationWatch } from './revocation-watch.js';
import { videosRoutes } from './videos.js';

export interface OpenAIRouterOptions {
  /** The use cases (a Gengate will do): resolved once, here, when the router is made. */
  readonly gengate: GengateUseCases;
  readonly blobStore: BlobStore;
  readonly logger: Logger;
  /** The same key limiter /api/v1 uses (one count per key across both surfaces). */
  readonly rateLimiter?: KeyRateLimiter;
  readonly trustProxy?: readonly string[];
  /** Operator aliases: a name clients send -> a gengate model id. */
  readonly modelAliases?: Readonly<Record<string, string>>;
  /** Interval of `: keep-alive` comments on an open stream; default 10 s. */
  readonly keepAliveMs?: number;
  /** How often the keys of open streams are checked for revocation; default 250 ms. */
  readonly revocationCheckMs?: number;
  readonly maxBodyBytes?: number;
}

/**
 * The OpenAI-compatible surface as one Express router, mounted at `/v1` (the OpenAI SDK's `baseURL` is
 * `<origin>/v1`): the same API keys, IP whitelists, key limits, holds, tasks and ledger as /api/v1, every
 * error in OpenAI's envelope.
 */
export function createOpenAIRouter(options: OpenAIRouterOptions): Router {
  const gengate = resolveUseCases(options.gengate);
  const aliases = options.modelAliases ?? {};
  const router = Router();
  const { stores } = gengate;
  const clientIp = createClientIpResolver(options.trustProxy ?? []);
  const rateLimiter = options.rateLimiter ?? createMemoryKeyRateLimiter();
  const revocations = new RevocationWatch(stores.keys, options.revocationCheckMs ?? 250);
  const keepAliveMs = options.keepAliveMs ?? 10_000;
  const maxBodyBytes = options.maxBodyBytes ?? 8 * 1_048_576;
  router.use(requestContext(options.logger));
  // Anthropic's Messages dialect first: its own key header and error envelope (anthropic/).
  router.use(anthropicRoutes({ gengate, clientIp, rateLimiter, revocations, aliases, keepAliveMs, maxBodyBytes }));
  router.use(authenticate(gengate, clientIp));
  router.use(openAIRateLimit(rateLimiter));
  // Before the JSON body parser: video jobs are created as multipart/form-data.
  router.use(videosRoutes({ gengate, tasks: stores.tasks, blobs: options.blobStore, aliases }));
  router.use(jsonBody(maxBodyBytes));
  router
    .route('/chat/completions')
    .post(
      chatCompletions({
        gengate,
        tasks: stores.tasks,
        blobs: options.blobStore,
        revocations,
        aliases,
        keepAliveMs,
      }),
    )
    .all(methodNotAllowed('POST'));
  router
    .route('/images/generations')
    .post(imageGenerations({ gengate, tasks: stores.tasks, blobs: options.blobStore, aliases }))
    .all(methodNotAllowed('POST'));
  router
    .route('/responses')
    .post(createResponse({ gengate, tasks: stores.tasks, blobs: options.blobStore, revocations, aliases, keepAliveMs, visible: (auth, task) => gengate.getTask.visible(auth, task) }))
    .all(methodNotAllowed('POST'));
  router.use(storedResponsesRoutes({ tasks: stores.tasks, blobs: options.blobStore, visible: (auth, task) => gengate.getTask.visible(auth, task) }));
  router.use(modelsRoutes(gengate, aliases));
  router.use(openAINotFound);
  router.use(openAIErrorHandler);
  return router;
}
