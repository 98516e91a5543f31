import { randomBytes } from 'node:crypto';
import type { Queryable } from './queryable.js';
import { checkSchemaName } from './schema.js';

/**
 * A named secret shared by every process on the database: created once (32 random bytes) by whichever
 * process asks first, then read by all. Table gengate_secrets (migration 006) in gengate's schema.
 */
export async function loadServerSecret(db: Queryable, schema: string, name: string): Promise<Buffer> {
  checkSchemaName(schema);
  await db.query(`insert into ${schema}.gengate_secrets (name, value) values ($1, $2) on conflict (name) do nothing`, [name, randomBytes(32)]);
  const { rows } = await db.query<{ value: Buffer }>(`select value from ${schema}.gengate_secrets where name = $1`, [name]);
  const value = rows[0]?.value;
  if (!value) throw new Error(`server secret ${name} could not be created`);
  return value;
}
