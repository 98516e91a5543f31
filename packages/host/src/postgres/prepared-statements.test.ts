import { randomUUID } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPool } from '../../test/support/open-pool.js';
import { CallbackRepository } from '../callbacks/callback-repository.js';
import { runMigrations } from './migrate.js';
import { PgTaskClaims } from './pg-task-claims.js';
import { prepared, preparedName, preparedQueryable } from './prepared-statements.js';
import { DEFAULT_SCHEMA } from './schema.js';
import { taskSql } from './sql/tasks.js';

describe('prepared statements: names', () => {
  it('one name per text and prefix, the same every time (so per schema)', () => {
    const a = preparedName('gengate_x', 'select 1');
    expect(a).toBe(preparedName('gengate_x', 'select 1'));
    expect(a).toMatch(/^gengate_x_[0-9a-f]{16}$/);
    expect(preparedName('gengate_x', 'select 2')).not.toBe(a);
    expect(preparedName('gengate_y', 'select 1')).not.toBe(a);
    expect(prepared('gengate_x', 'select 1')).toEqual({ text: 'select 1', name: a });
  });

  it('preparedQueryable sends each text under its own name, with its values', async () => {
    const sent: { name: string; text: string; values: unknown[] }[] = [];
    const db = preparedQueryable({ query: async (config) => (sent.push(config), { rows: [], rowCount: 0 }) }, 'gengate_t');
    await db.query('select $1::int', [1]);
    await db.query('select $1::text', ['a']);
    await db.query('select $1::int', [2]);
    await db.query('select now()');
    expect(sent.map((s) => s.values)).toEqual([[1], ['a'], [2], []]);
    expect(sent[0]?.name).toBe(preparedName('gengate_t', 'select $1::int'));
    expect(sent[2]?.name).toBe(sent[0]?.name);
    expect(new Set(sent.map((s) => s.name)).size).toBe(3);
  });
});

/** What the worker's named statements are for: PostgreSQL parses and plans each once per connection. */
describe('prepared statements on a connection', () => {
  let db: TestDatabase;
  let pool: pg.Pool;
  let close: () => Promise<void>;

  // One connection (pipelined, as the host's pools are), so pg_prepared_statements shows every statement.
  beforeAll(async () => {
    db = await createTestDatabase();
    ({ pool, close } = openPool(db.url, 1));
    await runMigrations(pool, DEFAULT_SCHEMA);
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await db?.drop();
  });

  const preparedOnConnection = async (): Promise<{ name: string; calls: number }[]> =>
    (
      await pool.query<{ name: string; calls: string }>(
        `select name, generic_plans + custom_plans as calls from pg_prepared_statements where name like 'gengate_%' order by name`,
      )
    ).rows.map((r) => ({ name: r.name, calls: Number(r.calls) }));

  it("the callback's reads and a lone claim are each prepared once and run as often as called", async () => {
    const user = randomUUID();
    const task = randomUUID();
    await pool.query(`insert into gengate.users (id, email) values ($1, 'p@example.com')`, [user]);
    await pool.query(
      `insert into gengate.tasks (id, user_id, model_id, modality, status, request, callback_url, quoted_micro, quoted_cost_micro)
       values ($1, $2, 'sandbox.echo-chat', 'chat', 'waiting', '{}', 'https://example.com/hook', 0, 0)`,
      [task, user],
    );
    const callbacks = new CallbackRepository(pool, DEFAULT_SCHEMA);
    const claims = new PgTaskClaims(pool, taskSql(DEFAULT_SCHEMA));
    for (let i = 0; i < 3; i++) expect(await callbacks.isDelivered(task)).toBe(false);
    const claimed = await claims.claim(task, new Date());
    expect(claimed?.status).toBe('generating');
    expect(await claims.claim(task, new Date())).toMatchObject({ status: 'generating', attempts: 2 });

    const statements = await preparedOnConnection();
    const callbackRead = statements.filter((s) => s.name.startsWith('gengate_callback_'));
    const claim = statements.filter((s) => s.name.startsWith('gengate_claim_'));
    expect(callbackRead).toEqual([{ name: expect.any(String), calls: 3 }]);
    expect(claim).toEqual([{ name: preparedName('gengate_claim', taskSql(DEFAULT_SCHEMA).markGenerating), calls: 2 }]);
  });
});
