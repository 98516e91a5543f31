import type pg from 'pg';

/**
 * The app's own tables, next to gengate's in the same database: its users (with the gengate user each
 * one acts as, linked on first use) and its sign-in sessions. A real app has its own migration tool.
 */
export async function migrateAppTables(pool: pg.Pool): Promise<void> {
  await pool.query(`
    create table if not exists users (
      id bigint generated always as identity primary key,
      email text not null unique,
      password_hash text not null,
      gengate_user_id uuid unique,
      created_at timestamptz not null default now()
    );
    create table if not exists sessions (
      token_hash text primary key,
      user_id bigint not null references users(id) on delete cascade,
      csrf_token text not null,
      expires_at timestamptz not null
    );
  `);
}

export interface AppUser {
  readonly id: string;
  readonly email: string;
  readonly gengateUserId: string | null;
}
