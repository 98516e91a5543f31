import { randomUUID } from 'node:crypto';
import type { CallPermit, ProviderCallLimiter, ProviderLimits } from '@gengate/core';
import { inject, injectable, optional } from 'inversify';
import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { HOST_TOKENS } from '../host-tokens.js';
import { checkSchemaName } from '../postgres/schema.js';
import { RATE_LIMIT_TABLE } from './create-rate-limiters.js';

const leaseSql = (schema: string) => ({
  renew: `update ${schema}.provider_call_leases set expires_at = now() + make_interval(secs => $2) where id = $1`,
  purgeExpired: `delete from ${schema}.provider_call_leases where provider = $1 and expires_at < now()`,
  count: `select count(*)::int as n from ${schema}.provider_call_leases where provider = $1`,
  insert: `insert into ${schema}.provider_call_leases (id, provider, holder, expires_at) values ($1, $2, $3, now() + make_interval(secs => $4))`,
  drop: `delete from ${schema}.provider_call_leases where id = $1`,
});

const UNLIMITED: CallPermit = { acquired: true, release: async () => undefined };

/**
 * Per-provider call limits shared by every process on the database. Concurrent calls are leases in
 * `provider_call_leases`, taken under a per-provider advisory lock (so two workers cannot both take the
 * last slot) and renewed while the call runs; a crashed worker's lease expires after `leaseSeconds`.
 * Calls per minute are counted with rate-limiter-flexible in PostgreSQL.
 */
@injectable()
export class PgCallLimiter implements ProviderCallLimiter {
  private readonly perMinute = new Map<string, RateLimiterPostgres>();
  private readonly sql: ReturnType<typeof leaseSql>;

  constructor(
    @inject(HOST_TOKENS.Pool) private readonly pool: pg.Pool,
    /** gengate's schema (the name runMigrations used). */
    @inject(HOST_TOKENS.Schema) private readonly schema: string,
    @inject(HOST_TOKENS.ProviderLimits) private readonly limits: (providerId: string) => ProviderLimits,
    @inject(HOST_TOKENS.CallLeaseSeconds) @optional() private readonly leaseSeconds = 30,
  ) {
    this.sql = leaseSql(checkSchemaName(schema));
  }

  async acquire(providerId: string, holderId: string): Promise<CallPermit> {
    const { maxConcurrent, maxPerMinute } = this.limits(providerId);
    if (maxConcurrent === null && maxPerMinute === null) return UNLIMITED;
    const leaseId = maxConcurrent === null ? null : await this.takeLease(providerId, holderId, maxConcurrent);
    if (leaseId === false) return { acquired: false, retryAfterMs: 300 + Math.floor(Math.random() * 400) };
    if (maxPerMinute !== null) {
      try {
        await this.minuteLimiter(providerId, maxPerMinute).consume(providerId);
      } catch (rejection) {
        if (leaseId) await this.dropLease(leaseId);
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return { acquired: false, retryAfterMs: Math.max(50, rejection.msBeforeNext) };
      }
    }
    if (!leaseId) return UNLIMITED;
    const renew = setInterval(() => {
      this.pool
        .query(this.sql.renew, [leaseId, this.leaseSeconds])
        .catch(() => undefined);
    }, (this.leaseSeconds * 1000) / 3);
    renew.unref();
    let released = false;
    return {
      acquired: true,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await this.dropLease(leaseId);
      },
    };
  }

  private async takeLease(providerId: string, holderId: string, max: number): Promise<string | false> {
    const client = await this.pool.connect();
    try {
      await client.query('begin');
      await client.query(`select pg_advisory_xact_lock(hashtext('gengate.provider-calls:' || $1))`, [providerId]);
      await client.query(this.sql.purgeExpired, [providerId]);
      const { rows } = await client.query<{ n: number }>(this.sql.count, [providerId]);
      if ((rows[0]?.n ?? 0) >= max) {
        await client.query('rollback');
        return false;
      }
      const id = randomUUID();
      await client.query(this.sql.insert, [
        id,
        providerId,
        holderId,
        this.leaseSeconds,
      ]);
      await client.query('commit');
      return id;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  private async dropLease(id: string): Promise<void> {
    await this.pool.query(this.sql.drop, [id]);
  }

  private minuteLimiter(providerId: string, points: number): RateLimiterPostgres {
    const id = `${providerId}:${points}`;
    let l = this.perMinute.get(id);
    if (!l) {
      l = new RateLimiterPostgres({
        storeClient: this.pool,
        storeType: 'pool',
        schemaName: this.schema,
        tableName: RATE_LIMIT_TABLE,
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: `gg-provider-${points}`,
        points,
        duration: 60,
      });
      this.perMinute.set(id, l);
    }
    return l;
  }
}
