/** The one method the stores need: a pg Pool (autocommit) or a PoolClient inside a transaction. */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(text: string, values?: unknown[]): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** A pg Pool whose statement runs as a named prepared statement (parsed and planned once per connection). */
export interface PreparedQueryable {
  query<R extends object>(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** BIGINT columns arrive as strings; micro-unit amounts must stay safe integers. */
export function toSafeInt(v: string | number | null): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`value ${String(v)} is not a safe integer`);
  return n;
}
