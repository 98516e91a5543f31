import type { DashboardServices } from '@gengate/core';
import { Router } from 'express';
import type { Logger } from 'pino';
import type { RequestAuthenticator } from '../http/middleware/authenticate.js';
import { dashboardApi } from './dashboard-api.js';
import { createSessionAuthenticator } from './session-authenticator.js';
import { sessionCookie, signInCookie } from './session-cookie.js';
import { DEFAULT_DASHBOARD_ASSETS, staticAssets } from './static-assets.js';

export interface DashboardOptions {
  readonly services: DashboardServices;
  readonly logger: Logger;
  /** The gateway's public base URL (PUBLIC_URL, or the address it listens on); read per request. */
  readonly publicUrl: () => string;
  /** How top-ups are paid (`manual`, `stripe`), shown on the billing page. */
  readonly paymentProcessor: string;
  /** The built app; default packages/dashboard/dist. */
  readonly assetsDir?: string;
}

export interface Dashboard {
  /** Mount at `/dashboard`: the app and its own API (`/dashboard/api`). */
  readonly router: Router;
  /** Give to createGengateRouter({ authenticate }) so the dashboard's session (with its CSRF token) reaches /api/v1. */
  readonly authenticate: RequestAuthenticator;
}

/** The web dashboard as a separate mount: an embedder that leaves it out simply does not mount it. */
export function createDashboard(options: DashboardOptions): Dashboard {
  const origin = () => {
    const url = options.publicUrl();
    return url ? new URL(url).origin : null;
  };
  const secure = options.publicUrl().startsWith('https:');
  const cookie = sessionCookie(secure);
  const router = Router();
  router.use('/api', dashboardApi({ services: options.services, cookie, signInCookie: signInCookie(secure), logger: options.logger, publicOrigin: origin, paymentProcessor: options.paymentProcessor }));
  router.use(staticAssets(options.assetsDir ?? DEFAULT_DASHBOARD_ASSETS));
  return { router, authenticate: createSessionAuthenticator(options.services.auth, cookie, origin, options.services.roles) };
}
