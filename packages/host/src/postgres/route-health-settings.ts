import { z } from 'zod';
import { int } from '../env-values.js';
import type { PgRouteHealthOptions } from './pg-route-health.js';

/** The routes' breaker settings (docs/configuration.md, docs/route-health.md), merged into the server's environment schema. */
export const ROUTE_HEALTH_ENV = {
  ROUTE_BREAKER_CONSECUTIVE_FAILURES: int(1, 10_000).default(5),
  ROUTE_BREAKER_ERROR_RATE_PERCENT: int(1, 100).default(50),
  ROUTE_BREAKER_MIN_ATTEMPTS: int(1, 1_000_000).default(20),
  ROUTE_BREAKER_WINDOW_MS: int(1_000, 3_600_000).default(30_000),
  ROUTE_BREAKER_LATENCY_P50_MS: int(1, 3_600_000).optional(),
  ROUTE_BREAKER_COOLDOWN_MS: int(1, 3_600_000).default(15_000),
  ROUTE_BREAKER_MAX_COOLDOWN_MS: int(1, 86_400_000).default(120_000),
};

type Parsed = z.output<z.ZodObject<typeof ROUTE_HEALTH_ENV>>;

/** What is wrong with the breaker settings together (each alone is checked by its schema). */
export function routeHealthIssues(c: Parsed): { path: string; message: string }[] {
  return c.ROUTE_BREAKER_MAX_COOLDOWN_MS < c.ROUTE_BREAKER_COOLDOWN_MS ? [{ path: 'ROUTE_BREAKER_MAX_COOLDOWN_MS', message: 'must be at least ROUTE_BREAKER_COOLDOWN_MS' }] : [];
}

export function routeHealthSettings(c: Parsed): PgRouteHealthOptions {
  return {
    breaker: {
      consecutiveFailures: c.ROUTE_BREAKER_CONSECUTIVE_FAILURES,
      errorRatePercent: c.ROUTE_BREAKER_ERROR_RATE_PERCENT,
      minAttempts: c.ROUTE_BREAKER_MIN_ATTEMPTS,
      windowMs: c.ROUTE_BREAKER_WINDOW_MS,
      latencyP50Ms: c.ROUTE_BREAKER_LATENCY_P50_MS ?? null,
      cooldownMs: c.ROUTE_BREAKER_COOLDOWN_MS,
      maxCooldownMs: c.ROUTE_BREAKER_MAX_COOLDOWN_MS,
    },
  };
}
