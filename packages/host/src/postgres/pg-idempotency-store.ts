import type { IdempotencyStore, JsonObject } from '@gengate/core';
import type { Queryable } from './queryable.js';

const FRESH = `created_at > now() - interval '24 hours'`;

/** The statements, built once per schema (createPgStores). */
export const idempotencySql = (schema: string) => ({
  find: `select request_hash, response from ${schema}.idempotency_keys where user_id = $1 and key = $2 and ${FRESH} for update`,
  save: `insert into ${schema}.idempotency_keys (user_id, key, request_hash, response) values ($1, $2, $3, $4)
       on conflict (user_id, key) do update set request_hash = excluded.request_hash, response = excluded.response, created_at = now()
       where idempotency_keys.created_at <= now() - interval '24 hours'
       returning 1`,
});
export type IdempotencySql = ReturnType<typeof idempotencySql>;

export class PgIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly db: Queryable,
    private readonly sql: IdempotencySql,
  ) {}

  async find(userId: string, key: string): Promise<{ requestHash: string; response: JsonObject } | null> {
    const { rows } = await this.db.query<{ request_hash: string; response: JsonObject }>(
      this.sql.find,
      [userId, key],
    );
    const r = rows[0];
    return r ? { requestHash: r.request_hash, response: r.response } : null;
  }

  /** Inserts, or takes over an expired record; waits for (and loses to) a concurrent insert of the same key. */
  async save(userId: string, key: string, requestHash: string, response: JsonObject): Promise<boolean> {
    const { rows } = await this.db.query(
      this.sql.save,
      [userId, key, requestHash, JSON.stringify(response)],
    );
    return rows.length > 0;
  }
}
