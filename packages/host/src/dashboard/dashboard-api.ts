import { GatewayError, type DashboardServices } from '@gengate/core';
import { csrfTokenFor, looksLikeSessionSecret, newSessionSecret, type SessionUser } from '@gengate/core/internal';
import { Router, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { errorHandler, methodNotAllowed, notFound } from '../http/middleware/error-handler.js';
import { jsonBody } from '../http/middleware/json-body.js';
import { requestContext } from '../http/middleware/request-context.js';
import { isSameOrigin } from './same-origin.js';
import { checkSession } from './session-authenticator.js';
import type { SessionCookie, SignInCookie } from './session-cookie.js';
import { usageCsv, wantsCsv } from '../http/usage/usage-csv.js';

export interface DashboardApiOptions {
  readonly services: DashboardServices;
  readonly cookie: SessionCookie;
  /** The pre-sign-in cookie that binds a link to the browser that asked for it. */
  readonly signInCookie: SignInCookie;
  readonly logger: Logger;
  /** The configured public origin (`https://gengate.example.com`), or null to accept the Host's own origin. */
  readonly publicOrigin: () => string | null;
  /** Shown to the sign-in page: how top-ups are paid. */
  readonly paymentProcessor: string;
}

function sessionView(user: SessionUser, secret: string) {
  return {
    user: { id: user.userId, email: user.email, role: user.role },
    csrf_token: csrfTokenFor(secret),
    expires_at: user.expiresAt.toISOString(),
  };
}

const userOf = (res: Response): SessionUser => res.locals['sessionUser'] as SessionUser;

/**
 * The dashboard's own endpoints (`/dashboard/api`): sign-in by e-mail link, the session, and the operator
 * views. They accept a session only (an API key never opens them); every one but GET /session needs the
 * session's CSRF token, and the sign-in endpoints need a same-origin request.
 */
export function dashboardApi(options: DashboardApiOptions): Router {
  const { services, cookie } = options;
  const router = Router();
  router.use(requestContext(options.logger));
  router.use((_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.use(jsonBody(64 * 1024));

  const sameOrigin: RequestHandler = (req, _res, next) => {
    if (!isSameOrigin(req, options.publicOrigin, true)) throw new GatewayError('csrf_failed', 'This request must come from the dashboard itself (its Origin is another site).');
    next();
  };
  const requireSession: RequestHandler = async (req, res, next) => {
    const check = await checkSession(req, services.auth, cookie, options.publicOrigin);
    if (!check.ok && check.reason === 'no_session') throw new GatewayError('session_required', 'Sign in to the dashboard first (the session is missing or expired).');
    if (!check.ok) throw new GatewayError('csrf_failed', 'The request lacks the session\'s CSRF token (X-CSRF-Token) or comes from another site; nothing was changed.');
    res.locals['sessionUser'] = check.user;
    res.locals['sessionSecret'] = check.secret;
    next();
  };
  const requireOperator: RequestHandler = (_req, res, next) => {
    if (userOf(res).role !== 'operator') throw new GatewayError('operator_only', 'This page is for operators; ask one to give you the role (gengate users role --email <you> --operator).');
    next();
  };

  router
    .route('/config')
    .get((_req, res) => {
      res.json({ open_signup: services.auth.openSignup, payment_processor: options.paymentProcessor });
    })
    .all(methodNotAllowed('GET'));
  // Sent only to these endpoints: the pre-sign-in cookie's path.
  const authPath = (baseUrl: string) => `${baseUrl}/auth`;
  router
    .route('/auth/link')
    .post(sameOrigin, async (req, res) => {
      // The browser keeps one pre-sign-in secret while it has one, so every link it asks for stays bound to it.
      const existing = options.signInCookie.read(req);
      const browserSecret = existing && looksLikeSessionSecret(existing) ? existing : newSessionSecret();
      const answer = await services.auth.requestLink(req.body ?? {}, browserSecret);
      options.signInCookie.set(res, browserSecret, authPath(req.baseUrl), services.auth.linkTtlMs);
      res.json(answer);
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/auth/verify')
    .post(sameOrigin, async (req, res) => {
      const result = await services.auth.verify(req.body ?? {}, { browserSecret: options.signInCookie.read(req), sessionSecret: cookie.read(req) });
      if (!result.signedIn) {
        const { email, requestedInThisBrowser, signedInAs } = result.confirm;
        res.json({ signed_in: false, confirm: { email, requested_in_this_browser: requestedInThisBrowser, signed_in_as: signedInAs } });
        return;
      }
      cookie.set(res, result.sessionSecret, result.user.expiresAt);
      options.signInCookie.clear(res, authPath(req.baseUrl));
      res.json({ signed_in: true, ...sessionView(result.user, result.sessionSecret), created: result.created });
    })
    .all(methodNotAllowed('POST'));
  router
    .route('/session')
    .get(async (req, res) => {
      const secret = cookie.read(req);
      const user = await services.auth.resolve(secret);
      if (!secret || !user) throw new GatewayError('session_required', 'Not signed in.');
      res.json(sessionView(user, secret));
    })
    .delete(requireSession, async (_req, res) => {
      await services.auth.signOut(res.locals['sessionSecret'] as string);
      cookie.clear(res);
      res.json({ signed_out: true });
    })
    .all(methodNotAllowed('GET', 'DELETE'));

  const operator = Router();
  operator.use(requireSession, requireOperator);
  operator
    .route('/users')
    .get(async (req, res) => {
      res.json(await services.operators.users(req.query));
    })
    .all(methodNotAllowed('GET'));
  operator
    .route('/users/:user_id')
    .get(async (req, res) => {
      res.json(await services.operators.user(req.params.user_id));
    })
    .all(methodNotAllowed('GET'));
  operator
    .route('/users/:user_id/credits')
    .post(async (req, res) => {
      res.json(await services.operators.grant(req.params.user_id, req.body ?? {}));
    })
    .all(methodNotAllowed('POST'));
  operator
    .route('/users/:user_id/api-keys/:key_id')
    .delete(async (req, res) => {
      res.json(await services.operators.revokeKey(req.params.user_id, req.params.key_id));
    })
    .all(methodNotAllowed('DELETE'));
  operator
    .route('/providers')
    .get((_req, res) => {
      res.json(services.operators.providers());
    })
    .all(methodNotAllowed('GET'));
  operator
    .route('/queue')
    .get(async (_req, res) => {
      res.json(await services.operators.queue());
    })
    .all(methodNotAllowed('GET'));
  operator
    .route('/routes')
    .get((_req, res) => {
      res.json(services.operators.routes());
    })
    .all(methodNotAllowed('GET'));
  operator
    .route('/failures')
    .get(async (req, res) => {
      res.json(await services.operators.failures(req.query));
    })
    .all(methodNotAllowed('GET'));
  operator
    .route('/usage')
    .get(async (req, res) => {
      // Every user's usage (group_by may name `user`, user_id filters to one), JSON or CSV like GET /api/v1/usage.
      const { report, format } = await services.usage.forOperator(req.query);
      if (wantsCsv(format, req.get('accept'))) {
        res.type('text/csv; charset=utf-8').send(usageCsv(report));
        return;
      }
      res.json(report);
    })
    .all(methodNotAllowed('GET'));
  router.use('/operator', operator);
  router.use(notFound);
  router.use(errorHandler);
  return router;
}
