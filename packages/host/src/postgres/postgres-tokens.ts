import { hostToken } from '../host-tokens.js';
import type { StoreReplacements } from './store-replacements.js';

/** The tokens only the PostgreSQL stores read (the pool, schema and job queue are `HOST_TOKENS`'). */
export const PG_TOKENS = {
  /** The stores that replace gengate's own, in every scope (none by default). */
  StoreReplacements: hostToken<StoreReplacements>('StoreReplacements'),
  /** Wakes `jobs` workers of a queue once the transaction that added them has committed (JobWakeups). */
  WakeJobs: hostToken<(queue: string, jobs: number) => void>('WakeJobs'),
  /** pg-boss's schema; not bound by default (`pgboss`). */
  BossSchema: hostToken<string>('BossSchema'),
} as const;
