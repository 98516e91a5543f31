import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaintenanceSteps, runMaintenance, startMaintenanceWorker, type MaintenanceContext } from '../src/jobs/maintenance-worker.js';
import { createBoss, QUEUES } from '../src/postgres/boss-queues.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { openPool } from './support/open-pool.js';
import { waitFor } from './support/spawn-server.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

const SETTINGS = {
  callbackAttemptRetentionDays: 30,
  lateWriteSeconds: 600,
  pendingTopupTtlSeconds: { stripe: 25 * 3_600, manual: 7 * 86_400 },
};

describe('maintenance sweep', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof openPool>;
  let boss: PgBoss;
  let ctx: MaintenanceContext;
  let blobs: LocalBlobStore;
  let userId: string;

  const q = (sql: string, values: unknown[] = []) => pool.pool.query(sql, values);

  async function task(status: 'success' | 'fail' | 'generating', finishedAgoSeconds: number | null): Promise<string> {
    const id = randomUUID();
    await q(
      `insert into gengate.tasks (id, user_id, model_id, modality, status, request, quoted_micro, quoted_cost_micro, finished_at)
       values ($1, $2, 'sandbox.pixel-image', 'image', $3, '{}', 0, 0, case when $4::int is null then null else now() - make_interval(secs => $4::int) end)`,
      [id, userId, status, finishedAgoSeconds],
    );
    await blobs.put(`${id}/output-0.png`, new Uint8Array([1, 2, 3]), 'image/png');
    return id;
  }

  async function topup(method: 'stripe' | 'manual', agoSeconds: number): Promise<string> {
    const id = randomUUID();
    await q(
      `insert into gengate.transactions (id, user_id, credits_micro, amount_micro_usd, payment_method, status, created_at)
       values ($1, $2, 1000000, 10000, $3, 'pending', now() - make_interval(secs => $4))`,
      [id, userId, method, agoSeconds],
    );
    return id;
  }

  const statusOf = async (txId: string) => (await q('select status from gengate.transactions where id = $1', [txId])).rows[0]?.status as string;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = openPool(db.url, 5);
    await runMigrations(pool.pool, DEFAULT_SCHEMA);
    boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
    blobs = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'gg-maint-')));
    ctx = { db: pool.pool, schema: DEFAULT_SCHEMA, blobStore: blobs, logger: pino({ level: 'silent' }) };
    userId = randomUUID();
    await q(`insert into gengate.users (id, email) values ($1, $2)`, [userId, `${userId}@example.com`]);
    await q('insert into gengate.accounts (user_id) values ($1)', [userId]);
  });

  afterAll(async () => {
    await boss?.stop({ graceful: false });
    await pool?.close();
    await db?.drop();
  });

  it('purges old idempotency records and callback attempts, deletes files of failed tasks, expires unpaid top-ups', async () => {
    await q(`insert into gengate.idempotency_keys (user_id, key, request_hash, response, created_at) values
      ($1, 'old', 'h', '{}', now() - interval '25 hours'), ($1, 'fresh', 'h', '{}', now() - interval '1 hour')`, [userId]);
    const succeeded = await task('success', 3_600);
    const failedLongAgo = await task('fail', 3_600);
    const failedJustNow = await task('fail', 5);
    const running = await task('generating', null);
    await q(`insert into gengate.callback_attempts (task_id, url, status_code, delivered, error, duration_ms, created_at) values
      ($1, 'https://x.test', 200, true, null, 5, now() - interval '31 days'), ($1, 'https://x.test', 200, true, null, 5, now() - interval '29 days')`, [succeeded]);
    const stripeExpired = await topup('stripe', 26 * 3_600);
    const stripePayable = await topup('stripe', 3_600);
    const manualExpired = await topup('manual', 8 * 86_400);
    const manualWaiting = await topup('manual', 86_400);
    const counts = () => q('select running_chat + running_image + running_video as running, queued_chat + queued_image + queued_video as queued from gengate.account_totals where user_id = $1', [userId]);
    expect((await counts()).rows).toEqual([{ running: 1, queued: 0 }]); // kept by the trigger
    await q('update gengate.accounts set running_video = running_video + 7, queued_chat = 3 where user_id = $1', [userId]); // drift

    const report = await runMaintenance(defaultMaintenanceSteps(SETTINGS), ctx);
    expect(report).toEqual({
      'purge-idempotency-keys': 1,
      'purge-callback-attempts': 1,
      'delete-files-of-failed-tasks': 2,
      'expire-pending-topups': 2,
      'recount-active-tasks': 1,
      'fold-usage-pending': 3, // the three ended tasks' usage (032), into the rollups
    });
    expect((await q('select count(*)::int as n from gengate.usage_rollup_pending')).rows).toEqual([{ n: 0 }]);
    expect((await counts()).rows).toEqual([{ running: 1, queued: 0 }]);
    expect((await q('select key from gengate.idempotency_keys where user_id = $1', [userId])).rows).toEqual([{ key: 'fresh' }]);
    expect((await q('select count(*)::int as n from gengate.callback_attempts')).rows[0]?.n).toBe(1);
    expect(await blobs.get(`${succeeded}/output-0.png`)).not.toBeNull();
    expect(await blobs.get(`${running}/output-0.png`)).not.toBeNull();
    expect(await blobs.get(`${failedLongAgo}/output-0.png`)).toBeNull();
    expect(await blobs.get(`${failedJustNow}/output-0.png`)).toBeNull();
    expect([await statusOf(stripeExpired), await statusOf(stripePayable), await statusOf(manualExpired), await statusOf(manualWaiting)]).toEqual([
      'failed',
      'pending',
      'failed',
      'pending',
    ]);

    // A task that failed moments ago is swept again (a worker may still store its files); one past the window is done.
    await blobs.put(`${failedJustNow}/output-0.png`, new Uint8Array([9]), 'image/png');
    await blobs.put(`${failedLongAgo}/output-0.png`, new Uint8Array([9]), 'image/png');
    const again = await runMaintenance(defaultMaintenanceSteps(SETTINGS), ctx);
    expect(again['delete-files-of-failed-tasks']).toBe(1);
    expect(await blobs.get(`${failedJustNow}/output-0.png`)).toBeNull();
    expect(await blobs.get(`${failedLongAgo}/output-0.png`)).not.toBeNull(); // swept for good: no longer looked at
  });

  it('runs every step even when one fails, and takes extra steps', async () => {
    const ran: string[] = [];
    const report = await runMaintenance(
      [
        { name: 'broken', run: async () => Promise.reject(new Error('boom')) },
        { name: 'extra', run: async () => (ran.push('extra'), 3) },
      ],
      ctx,
    );
    expect(report).toEqual({ broken: 'failed: boom', extra: 3 });
    expect(ran).toEqual(['extra']);
  });

  it('is a pg-boss schedule whose job runs the steps', async () => {
    let runs = 0;
    const worker = await startMaintenanceWorker(boss, ctx, { cron: '*/10 * * * *', steps: [{ name: 'count', run: async () => ++runs }] });
    const schedules = await boss.getSchedules(QUEUES.maintenance);
    expect(schedules.map((s) => s.cron)).toEqual(['*/10 * * * *']);
    await boss.send(QUEUES.maintenance, {});
    await waitFor(async () => (runs > 0 ? true : null), { timeoutMs: 40_000, intervalMs: 100, what: 'the maintenance job' });
    await worker.stop({ graceMs: 1_000 });
  });
});
