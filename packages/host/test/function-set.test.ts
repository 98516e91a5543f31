import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { defineFunctions, functionSetHash } from '../src/postgres/function-set.js';
import { FUNCTIONS } from '../src/postgres/functions/index.js';
import type { SqlFunction } from '../src/postgres/functions/sql-function.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { MIGRATIONS_AT_F04FA3B } from './support/migrations-at-f04fa3b.js';

/**
 * The SQL functions' one home (functions/, function-set.ts): a database migrated by an older gengate, whose
 * migrations re-created the bodies one after another, ends with exactly today's definitions; no stale
 * overload is left; a start with the same set changes nothing; a changed set is applied at the next start.
 */
const S = 'gengate';

/** Every function of the schema: its signature and its whole definition (pg_get_functiondef). */
const FUNCTIONS_SQL = `select p.oid::regprocedure::text as signature, pg_get_functiondef(p.oid) as definition, p.xmin::text as xmin
  from pg_proc p where p.pronamespace = $1::regnamespace order by 1`;

interface Row {
  readonly signature: string;
  readonly definition: string;
  readonly xmin: string;
}

/** A database as main at f04fa3b (or an older main, up to `upTo`) left it: its migrations, bookkeeping included. */
async function migratedByOldCode(pool: pg.Pool, upTo: number): Promise<void> {
  await pool.query(`create schema ${S}; create table ${S}.gengate_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`);
  for (const m of MIGRATIONS_AT_F04FA3B.filter((x) => x.version <= upTo)) {
    await pool.query(`begin; ${m.up(S)}; insert into ${S}.gengate_migrations (version, name) values (${m.version}, '${m.name.replaceAll("'", "''")}'); commit;`);
  }
}

describe('the SQL function set', () => {
  const dbs: TestDatabase[] = [];
  const pools: pg.Pool[] = [];
  const open = async (): Promise<pg.Pool> => {
    const db = await createTestDatabase();
    dbs.push(db);
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    pools.push(pool);
    return pool;
  };
  const functions = async (pool: pg.Pool, schema = S) => (await pool.query<Row>(FUNCTIONS_SQL, [schema])).rows;
  afterAll(async () => {
    for (const p of pools) await p.end();
    for (const d of dbs) await d.drop();
  });

  it('a database migrated by the old code ends with exactly the definitions of a fresh one, and a second start changes nothing', async () => {
    const fresh = await open();
    await runMigrations(fresh, S);
    const expected = await functions(fresh);
    expect(expected.map((f) => f.signature.replace(/\(.*/, '')).sort()).toEqual(FUNCTIONS.map((f) => `${S}.${f.name}`).sort());

    const old = await open();
    await migratedByOldCode(old, 28);
    const before = await functions(old);
    // The old code's set: today's but for the functions added since (they are created by the upgrade).
    const addedSince = [
      `${S}.gengate_submit_tasks(uuid,text,jsonb)`,
      `${S}.gengate_submit_locked_task(uuid,uuid,uuid,text,text,jsonb,text,bigint,bigint,integer,integer,text,uuid,text,text,text,jsonb,timestamp with time zone,uuid,bigint,integer,integer,uuid[])`,
      `${S}.gengate_fold_usage_pending()`,
      `${S}.gengate_fold_spend_pending(uuid)`,
      `${S}.gengate_enqueue_jobs(text,text,uuid[],jsonb[],text[],text[])`,
      `${S}.gengate_finish_successes(uuid[],jsonb[],jsonb[],bigint[],bigint[],bigint[],jsonb[],jsonb[],timestamp with time zone[],text[],uuid[],integer[],text,text[],uuid[],integer[],text[])`,
      `${S}.gengate_remove_job(text,text,uuid,integer)`,
      `${S}.gengate_poll(uuid[],uuid[],uuid[])`,
    ];
    // ...and those whose arguments grew since: gengate_finish_success took the inline outputs' bytes (030),
    // gengate_key_budget_admit the keys of a batch's tasks not written yet (issue 23).
    const grownSince = (s: string) => s.replace(/^(.*\.gengate_finish_success\(.*),bytea\[\]\)$/, '$1)').replace(/^(.*\.gengate_key_budget_admit\(.*),uuid\[\]\)$/, '$1)');
    expect(before.map((f) => f.signature)).toEqual(expected.map((f) => grownSince(f.signature)).filter((s) => !addedSince.includes(s)));
    // (The old bodies are the same rules but not the same text: fold_pending's was generated on one line.)
    expect(before.map((f) => f.definition)).not.toEqual(expected.map((f) => f.definition));
    // The migrations added since f04fa3b's 28 (029: the spend rows' pending twins; 030: the inline outputs;
    // 031: a redundant index dropped; 032: the usage rollups' pending rows; 033: the spend triggers on update only).
    expect(await runMigrations(old, S)).toEqual({ applied: [29, 30, 31, 32, 33], adopted: false });
    const after = await functions(old);
    expect(after.map(({ signature, definition }) => ({ signature, definition }))).toEqual(expected.map(({ signature, definition }) => ({ signature, definition })));
    const recorded = (await old.query<{ hash: string; applied_at: Date }>(`select hash, applied_at from ${S}.gengate_function_set`)).rows;
    expect(recorded.map((r) => r.hash)).toEqual([functionSetHash(S)]);

    // The same set again: no function rewritten (same row versions), the record untouched.
    expect(await runMigrations(old, S)).toEqual({ applied: [], adopted: false });
    expect(await functions(old)).toEqual(after);
    expect((await old.query<{ hash: string; applied_at: Date }>(`select hash, applied_at from ${S}.gengate_function_set`)).rows).toEqual(recorded);
  });

  it('an upgrade from before member budgets leaves no stale overload, and drops only gengate functions of its schema', async () => {
    const pool = await open();
    await migratedByOldCode(pool, 25);
    // 025's submission and its traced wrapper (before p_member_id), a retired function, and functions not gengate's.
    const old = (await functions(pool)).map((f) => f.signature);
    expect(old).toContain(`${S}.gengate_submit_task(uuid,uuid,uuid,text,text,jsonb,text,bigint,bigint,integer,integer,text,uuid,text,text,text,jsonb,timestamp with time zone)`);
    await pool.query(`create function ${S}.gengate_retired_rule() returns integer language sql as 'select 1';
      create function ${S}.app_helper() returns integer language sql as 'select 2';
      create schema pgboss_like; create function pgboss_like.gengate_job_now() returns integer language sql as 'select 3'`);

    const { applied } = await runMigrations(pool, S);
    expect(applied).toEqual([26, 27, 28, 29, 30, 31, 32, 33]);
    const signatures = (await functions(pool)).map((f) => f.signature);
    const names = signatures.map((s) => s.replace(/\(.*/, ''));
    expect(names.filter((n) => n.startsWith(`${S}.gengate_`)).sort()).toEqual(FUNCTIONS.map((f) => `${S}.${f.name}`).sort());
    expect(new Set(names).size).toBe(names.length); // one signature per name: no overload left
    expect(signatures).toContain(`${S}.app_helper()`);
    expect((await functions(pool, 'pgboss_like')).map((f) => f.signature)).toEqual(['pgboss_like.gengate_job_now()']);
    // The current submission, with the member, is the one that runs.
    expect(signatures.find((s) => s.startsWith(`${S}.gengate_submit_task(`))).toMatch(/timestamp with time zone,uuid\)$/);
  });

  it('a changed set reaches an existing database at its next start; a definition that changes a parameter name replaces the old one', async () => {
    const pool = await open();
    await runMigrations(pool, S);
    const [fold] = (await functions(pool)).filter((f) => f.signature.startsWith(`${S}.gengate_fold_pending(`));
    // An older set recorded (as a release with another body would leave it): the next start applies today's.
    await pool.query(`update ${S}.gengate_function_set set hash = 'an older set'`);
    await pool.query(`create or replace function ${S}.gengate_fold_pending(p_user uuid) returns integer language sql as 'select 0'`);
    await runMigrations(pool, S);
    expect((await pool.query<{ hash: string }>(`select hash from ${S}.gengate_function_set`)).rows[0]?.hash).toBe(functionSetHash(S));
    const [again] = (await functions(pool)).filter((f) => f.signature.startsWith(`${S}.gengate_fold_pending(`));
    expect(again?.definition).toBe(fold?.definition);

    // A parameter renamed (create or replace refuses it): dropped and created again, in the same transaction.
    const renamed: SqlFunction = {
      name: 'gengate_fold_pending',
      identityArgs: 'uuid',
      sql: (schema) => `create or replace function ${schema}.gengate_fold_pending(p_organization uuid) returns integer language sql as 'select 1'`,
    };
    const client = await pool.connect();
    try {
      await client.query('begin');
      const dropped = await defineFunctions(client, S, { checkBodies: true }, [...FUNCTIONS.filter((f) => f.name !== renamed.name), renamed]);
      expect(dropped).toEqual([]);
      const [changed] = (await client.query<Row>(FUNCTIONS_SQL, [S])).rows.filter((f) => f.signature.startsWith(`${S}.gengate_fold_pending(`));
      expect(changed?.definition).toContain('p_organization uuid');
      await client.query('rollback');
    } finally {
      client.release();
    }
  });

  it('refuses a function whose identityArgs do not match its definition, and changes nothing', async () => {
    const pool = await open();
    await runMigrations(pool, S);
    const before = await functions(pool);
    const wrong: SqlFunction = {
      name: 'gengate_wrong_signature',
      identityArgs: 'text',
      sql: (schema) => `create or replace function ${schema}.gengate_wrong_signature(p integer) returns integer language sql as 'select p'`,
    };
    const client = await pool.connect();
    try {
      await client.query('begin');
      await expect(defineFunctions(client, S, { checkBodies: true }, [...FUNCTIONS, wrong])).rejects.toThrow(/gengate_wrong_signature\(text\)/);
      await client.query('rollback');
    } finally {
      client.release();
    }
    expect(await functions(pool)).toEqual(before);
  });
});
