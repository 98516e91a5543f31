import type { Socket } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUES } from '../src/postgres/boss-queues.js';
import { pipelinedStatement, pipelinedTransaction } from '../src/postgres/statement-pipeline.js';
import { openPgGengate, type PgGengate } from './support/pg-gengate.js';

describe('pipelinedTransaction on a pipelined pool', () => {
  let h: PgGengate;

  beforeAll(async () => {
    h = await openPgGengate({ pipeline: true });
  });

  afterAll(async () => {
    await h?.close();
  });

  /**
   * Counts the socket writes of every client checked out while `fn` runs, and waits until each is back in
   * the pool (a pipelinedStatement answers before the statement sent after it has, and releases then).
   */
  async function countWrites<T>(fn: () => Promise<T>): Promise<{ value: T; writes: number }> {
    let writes = 0;
    let outstanding = 0;
    let allReleased: (() => void) | null = null;
    const onRelease = () => {
      if (--outstanding === 0) allReleased?.();
    };
    const patched: { stream: Socket; write: Socket['_write']; writev: Socket['_writev'] }[] = [];
    const onAcquire = (client: unknown) => {
      const stream = (client as { connection: { stream: Socket } }).connection.stream;
      const write = stream._write;
      const writev = stream._writev;
      stream._write = function (...args: Parameters<Socket['_write']>) {
        writes++;
        return write.apply(this, args);
      };
      if (writev) {
        stream._writev = function (...args: Parameters<NonNullable<Socket['_writev']>>) {
          writes++;
          return writev.apply(this, args);
        };
      }
      patched.push({ stream, write, writev });
      outstanding++;
    };
    h.pool.on('acquire', onAcquire);
    h.pool.on('release', onRelease);
    try {
      const value = await fn();
      if (outstanding > 0) await new Promise<void>((resolve) => (allReleased = resolve));
      return { value, writes };
    } finally {
      h.pool.off('acquire', onAcquire);
      h.pool.off('release', onRelease);
      for (const p of patched) {
        p.stream._write = p.write;
        p.stream._writev = p.writev;
      }
    }
  }

  it('sends BEGIN, a pg-boss job, a statement and COMMIT in one write, and commits them all', async () => {
    const { value, writes } = await countWrites(() =>
      pipelinedTransaction(h.pool, async (p) => {
        await p.sendJob(h.boss, QUEUES.callback, { taskId: '00000000-0000-4000-8000-000000000001' }, {});
        return { result: p.query<{ n: number }>('select 41 + 1 as n').then((r) => r.rows[0]?.n) };
      }),
    );
    expect(value).toBe(42);
    expect(writes).toBe(1);
    const jobs = await h.pool.query(`select 1 from pgboss.job where name = $1 and data->>'taskId' = '00000000-0000-4000-8000-000000000001'`, [QUEUES.callback]);
    expect(jobs.rowCount).toBe(1);
  });

  it('sends a statement after COMMIT in the same write, outside the transaction (a NOTIFY heard once committed)', async () => {
    const listener = new pg.Client({ connectionString: h.db.url });
    await listener.connect();
    try {
      await listener.query('listen gengate_pipeline_test');
      const heard = new Promise<string | undefined>((resolve) => listener.once('notification', (m) => resolve(m.payload)));
      const { writes } = await countWrites(() =>
        pipelinedTransaction(h.pool, async (p) => ({ result: p.query('select 1') }), { text: 'select pg_notify($1, $2)', values: ['gengate_pipeline_test', 'after commit'] }),
      );
      expect(writes).toBe(1);
      expect(await heard).toBe('after commit');
    } finally {
      await listener.end();
    }
  });

  it('runs a named statement and the one after it as prepared statements: parsed once per connection, one write each time', async () => {
    const statement = { name: 'gengate_pipeline_test_sum', text: 'select $1::int + $2::int as n', values: [40, 2] };
    const after = { name: 'gengate_pipeline_test_notify', text: 'select pg_notify($1, $2)', values: ['gengate_pipeline_test', 'named'] };
    const parsed = async (): Promise<string[]> => {
      const client = await h.pool.connect();
      try {
        return (await client.query<{ name: string }>(`select name from pg_prepared_statements where name like 'gengate_pipeline_test%' order by name`)).rows.map((r) => r.name);
      } finally {
        client.release();
      }
    };
    for (let i = 0; i < 6; i++) {
      const { value, writes } = await countWrites(() => pipelinedStatement<{ n: number }>(h.pool, statement, after));
      expect(value.rows[0]?.n).toBe(42);
      expect(writes).toBe(1);
    }
    // The connection that ran it last (pg-pool hands out the most recently released one) holds both prepared.
    expect(await parsed()).toEqual(['gengate_pipeline_test_notify', 'gengate_pipeline_test_sum']);
  });

  it('answers a statement without waiting for the one sent after it, and releases the connection once that one answered too', async () => {
    const holder = await h.pool.connect();
    await holder.query('select pg_advisory_lock(4242)');
    let released = false;
    const onRelease = () => (released = true);
    h.pool.on('release', onRelease);
    try {
      // `after` waits for the advisory lock `holder` keeps: the statement's answer arrives all the same.
      const res = await pipelinedStatement<{ n: number }>(h.pool, { text: 'select 41 + 1 as n', values: [] }, { text: 'select pg_advisory_xact_lock(4242)', values: [] });
      expect(res.rows[0]?.n).toBe(42);
      expect(released).toBe(false);
      const back = new Promise<void>((resolve) => h.pool.once('release', () => resolve()));
      await holder.query('select pg_advisory_unlock(4242)');
      await back;
      expect(released).toBe(true);
    } finally {
      h.pool.off('release', onRelease);
      holder.release();
    }
  });

  it('rolls the job back with the transaction when a statement fails', async () => {
    await expect(
      pipelinedTransaction(h.pool, async (p) => {
        await p.sendJob(h.boss, QUEUES.callback, { taskId: '00000000-0000-4000-8000-000000000002' }, {});
        return { result: p.query('select 1 / 0') };
      }),
    ).rejects.toThrow(/division by zero/);
    const jobs = await h.pool.query(`select 1 from pgboss.job where data->>'taskId' = '00000000-0000-4000-8000-000000000002'`);
    expect(jobs.rowCount).toBe(0);
  });
});
