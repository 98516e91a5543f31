import { resolveUseCases, type BlobStore, type GengateUseCases, type KeyRateLimiter, type TaskRecord } from '@gengate/core';
import { Router } from 'express';
import type { Logger } from 'pino';
import { createMemoryKeyRateLimiter } from '../limits/create-rate-limiters.js';
import { createClientIpResolver } from './client-ip.js';
import { frontWithSlot } from './front-gate.js';
import { authenticate, callerResolver, pollsAndSubmissions, type AuthenticationSeam, type RequestAuth, type RequestAuthenticator } from './middleware/authenticate.js';
import { errorHandler, notFound, rememberApiRoot } from './middleware/error-handler.js';
import { jsonBody } from './middleware/json-body.js';
import { rateLimit } from './middleware/rate-limit.js';
import { requestContextHandler } from './middleware/request-context.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { billingRoutes } from './routes/billing.js';
import { usageRoutes } from './routes/usage.js';
import { organizationRoutes } from './routes/organizations.js';
import { invitationRoutes } from './routes/invitations.js';
import { fileRoutes } from './routes/files.js';
import type { FileDeliveryOptions } from './routes/files-delivery.js';
import { openApiDocumentRoutes } from './routes/openapi-document.js';
import { modelRoutes } from './routes/models.js';
import { isSubmission, pollRoute, runRoutes, submitRoute } from './routes/run.js';
import { callbackRoutes } from './routes/callbacks.js';
import type { CallbackRepository } from '../callbacks/callback-repository.js';
import type { ResultUrlVerifier } from '../storage/result-urls.js';
import { stripeWebhookRoutes, type StripeWebhookOptions } from './routes/stripe-webhook.js';
import { providerWebhookRoutes } from './routes/provider-webhooks.js';

export interface GengateRouterOptions {
  /** The use cases (a Gengate will do): resolved once, here, when the router is made. */
  readonly gengate: GengateUseCases;
  /** Where result files are read from (the same store the worker writes to). */
  readonly blobStore: BlobStore;
  readonly logger: Logger;
  /** Addresses or CIDR ranges of proxies whose X-Forwarded-For is believed; default none. */
  readonly trustProxy?: readonly string[];
  /**
   * Counts per-key limits. Default: in this process only; pass createPgKeyRateLimiter(pool) so that every
   * process on the database shares one count.
   */
  readonly rateLimiter?: KeyRateLimiter;
  /** Mounts POST /billing/stripe/webhook (signed by Stripe, no API key) when Stripe sells the credits. */
  readonly stripeWebhook?: StripeWebhookOptions;
  /** Mounts the callback secret and delivery-attempt endpoints (PostgreSQL hosts). */
  readonly callbacks?: CallbackRepository;
  /** Largest accepted JSON body; default 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Another way to authenticate a request, asked before the API-key check (the dashboard's session with
   * its CSRF token, or an embedder's own sign-in); returning null falls through to the API key.
   */
  readonly authenticate?: RequestAuthenticator;
  /**
   * How a person passes `authenticate`, named in the 401 of a request that has neither it nor an API
   * key (`Not signed in: <hint>, or send an API key ...`); default `sign in`.
   */
  readonly signInHint?: string;
  /**
   * Checks the signature and expiry of result file URLs; set it when the resolver signs them
   * (createResultUrlResolver with signing). Default: result URLs do not expire.
   */
  readonly resultUrlVerifier?: ResultUrlVerifier;
  /**
   * Who may download a result file: `capability` (default) whoever holds its URL (signed and expiring
   * with `resultUrlVerifier`); `owner` only the task's owner, authenticated as on every other route
   * (`authenticateFiles`, then the API key); another user's file is then a 404, like another user's task.
   */
  readonly fileAccess?: 'capability' | 'owner';
  /**
   * The seam that authenticates file downloads in `owner` mode; default `authenticate`. A browser loads
   * an <img> or <video> with its cookies but without custom headers, and a download changes nothing,
   * so this seam may accept a SameSite session cookie alone.
   */
  readonly authenticateFiles?: RequestAuthenticator;
  /** Milliseconds since the epoch, for result URL expiry; default Date.now. */
  readonly now?: () => number;
  /** How result files are served: streamed (default) or a 302 to the blob store's presigned URL. */
  readonly fileDelivery?: FileDeliveryOptions;
  /** Refused requests (4xx, 503 overloaded) of one kind are summarized in one log line per this interval; default 10 s. */
  readonly refusalSummaryMs?: number;
}

/**
 * The whole /api/v1 surface as one Express 5 router: `app.use('/api/v1', createGengateRouter(...))`.
 * It brings its own body parsing, request logging and error handling, so it needs nothing from the host app.
 */
export function createGengateRouter(options: GengateRouterOptions): Router {
  const gengate = resolveUseCases(options.gengate);
  const router = Router();
  const clientIp = createClientIpResolver(options.trustProxy ?? []);
  const signInHint = options.signInHint !== undefined ? { signInHint: options.signInHint } : {};
  const seam: AuthenticationSeam | undefined = options.authenticate ? { authenticate: options.authenticate, ...signInHint } : undefined;
  const fileSeam = options.authenticateFiles ?? options.authenticate;
  const limit = rateLimit(options.rateLimiter ?? createMemoryKeyRateLimiter());
  const context = requestContextHandler(options.logger, options.refusalSummaryMs === undefined ? {} : { refusalSummaryMs: options.refusalSummaryMs });
  // One layer: the start-up gate createGengateHost may put in front (setFrontGate), where the router is
  // mounted (for the messages), the request context.
  router.use(
    frontWithSlot(router, (req, res, next) => {
      rememberApiRoot(req, res);
      return context(req, res, next);
    }),
  );
  // The poll and the submission first, behind the same authentication (a cached key will do: their
  // statements re-check the key) and rate limit as every route below: the most frequent requests walk no
  // other router.
  const hotPathAuth = authenticate(gengate, clientIp, seam, () => true);
  const body = jsonBody(options.maxBodyBytes ?? 1_048_576);
  router.get('/run/tasks/:task_id', hotPathAuth, limit, pollRoute(gengate));
  // The submission too, behind the same authentication, rate limit and body parsing as below (in that
  // order: a bad key is a 401 before its body is read). POST /run/tasks is passed on to runRoutes' 405.
  router.post('/run/:model_id', isSubmission, hotPathAuth, limit, body, submitRoute(gengate));
  router.use(openApiDocumentRoutes());
  router.use(
    fileRoutes({
      blobs: options.blobStore,
      tasks: gengate.tasks,
      verifier: options.resultUrlVerifier ?? null,
      ...(options.fileAccess === 'owner'
        ? {
            caller: callerResolver(gengate, clientIp, fileSeam ? { authenticate: fileSeam, ...signInHint } : undefined),
            visible: (caller: RequestAuth, task: TaskRecord) => gengate.getTask.visible(caller, task),
          }
        : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.fileDelivery ? { delivery: options.fileDelivery } : {}),
    }),
  );
  if (options.stripeWebhook) router.use(stripeWebhookRoutes(gengate, options.stripeWebhook));
  router.use(providerWebhookRoutes(gengate));
  router.use(authenticate(gengate, clientIp, seam, pollsAndSubmissions));
  router.use(limit);
  router.use(body);
  if (options.callbacks) router.use(callbackRoutes(options.callbacks, gengate));
  router.use(runRoutes(gengate));
  router.use(modelRoutes(gengate));
  router.use(apiKeyRoutes(gengate));
  router.use(billingRoutes(gengate));
  router.use(usageRoutes(gengate));
  router.use(organizationRoutes(gengate));
  router.use(invitationRoutes(gengate));
  router.use(notFound);
  router.use(errorHandler);
  return router;
}
