import type { KeyRateLimiter } from '@gengate/core';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres } from 'rate-limiter-flexible';
import { checkSchemaName } from '../postgres/schema.js';
import { FlexibleKeyRateLimiter } from './key-rate-limiter.js';

/** Table created by migration 002 in gengate's schema (the columns rate-limiter-flexible expects; its `schemaName` option names the schema). */
export const RATE_LIMIT_TABLE = 'gengate_rate_limits';

/** Counts in PostgreSQL: every host process on the database shares one count per key. `schema`: the name runMigrations used. */
export function createPgKeyRateLimiter(pool: pg.Pool, schema: string): KeyRateLimiter {
  checkSchemaName(schema);
  return new FlexibleKeyRateLimiter(
    ({ keyPrefix, points, duration }) =>
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        schemaName: schema,
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
