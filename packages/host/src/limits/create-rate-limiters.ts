import type { KeyRateLimiter } from '@gengate/core';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres } from 'rate-limiter-flexible';
import { FlexibleKeyRateLimiter } from './key-rate-limiter.js';

/** Table created by migration 002 (the schema rate-limiter-flexible expects). */
export const RATE_LIMIT_TABLE = 'gengate_rate_limits';

/** Counts in PostgreSQL: every host process on the database shares one count per key. */
export function createPgKeyRateLimiter(pool: pg.Pool): KeyRateLimiter {
  return new FlexibleKeyRateLimiter(
    ({ keyPrefix, points, duration }) =>
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix,
        points,
        duration,
      }),
  );
}

/** Counts in this process only (tests, single-process embedding without PostgreSQL). */
export function createMemoryKeyRateLimiter(): KeyRateLimiter {
  return new FlexibleKeyRateLimiter(({ keyPrefix, points, duration }) => new RateLimiterMemory({ keyPrefix, points, duration }));
}
