import { GatewayError, type UserRole } from '@gengate/core';
import type pg from 'pg';
import { PgAccountDirectory } from '../postgres/pg-account-directory.js';

/** `gengate users role`: sets a user's dashboard role by e-mail. */
export async function setUserRole(pool: pg.Pool, schema: string, email: string, role: UserRole): Promise<{ user_id: string; email: string; role: UserRole }> {
  const updated = await new PgAccountDirectory(pool, schema).setRole(email, role);
  if (!updated) throw new GatewayError('not_found', `No user with e-mail ${email}.`, { param: 'email' });
  return { user_id: updated.id, email: updated.email, role: updated.role };
}
