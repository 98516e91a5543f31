import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SandboxAdapter } from '@gengate/adapters';
import { createGengate, type Authenticated, type Gengate } from '@gengate/core';
import { createTestDatabase, type TestDatabase } from '@gengate/testing/host';
import type { PgBoss } from 'pg-boss';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retentionStep, runMaintenance, type MaintenanceContext } from '../src/jobs/maintenance-worker.js';
import { createBoss, QUEUES } from '../src/postgres/boss-queues.js';
import { ManualPaymentProcessor } from '../src/payments/manual-processor.js';
import { runMigrations } from '../src/postgres/migrate.js';
import { createPgStores } from '../src/postgres/pg-unit-of-work.js';
import { LocalBlobStore } from '../src/storage/local-blob-store.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';
import { ledgerViolations } from './support/ledger-invariant.js';
import { openPool } from './support/open-pool.js';
import { waitFor } from './support/spawn-server.js';

/** Retention: ended tasks older than the age go with their files, holds, callback attempts and job rows; the ledger stays. */
describe('retention (purge-ended-tasks maintenance step)', () => {
  let db: TestDatabase;
  let pool: ReturnType<typeof openPool>;
  let boss: PgBoss;
  let blobs: LocalBlobStore;
  let gengate: Gengate;
  let ctx: MaintenanceContext;
  let user: Authenticated;

  const q = <R extends object = Record<string, unknown>>(sql: string, values: unknown[] = []) => pool.pool.query<R>(sql, values);
  const count = async (sql: string, values: unknown[]) => (await q<{ n: number }>(`select count(*)::int as n from ${sql}`, values)).rows[0]?.n;

  beforeAll(async () => {
    db = await createTestDatabase();
    pool = openPool(db.url, 8);
    await runMigrations(pool.pool, DEFAULT_SCHEMA);
    boss = await createBoss({ connectionString: db.url, logger: pino({ level: 'silent' }) });
    blobs = new LocalBlobStore(mkdtempSync(join(tmpdir(), 'gg-retention-')));
    const { stores, unitOfWork, taskIntake, taskCompletion } = createPgStores(pool.pool, boss, { schema: DEFAULT_SCHEMA });
    gengate = createGengate({
      adapters: [new SandboxAdapter({ latencyMs: { chat: 1, image: 1, video: 1 } })],
      stores,
      unitOfWork,
      taskIntake,
      taskCompletion,
      blobStore: blobs,
      resultUrls: { urlFor: (k) => `http://gengate.test/api/v1/files/${k}` },
      paymentProcessor: new ManualPaymentProcessor(),
      // Every result in the blob store: about 1 % of the sandbox's 512 px PNGs (their seed is the task id's hash)
      // compress to 4 KiB or less and would be kept with the task instead (inline results, 030).
      execution: { inlineResultMaxBytes: 0 },
    });
    ctx = { db: pool.pool, schema: DEFAULT_SCHEMA, blobStore: blobs, logger: pino({ level: 'silent' }) };
    const { api_key } = await gengate.admin.createUser({ email: 'retention@example.com', credits: 100 });
    user = await gengate.authenticate.execute(api_key, '127.0.0.1');
  });

  afterAll(async () => {
    await boss?.stop({ graceful: false });
    await pool?.close();
    await db?.drop();
  });

  it('with an age of one second purges ended tasks and their files, leaves in-flight tasks and the ledger as they were', async () => {
    const submit = async (model: string, prompt: string) => (await gengate.submitRun.execute(user, model, { prompt, callback_url: 'https://receiver.example/cb' })).task_id;
    const succeeded = await submit('sandbox.pixel-image', 'a red fox');
    const failed = await submit('sandbox.echo-chat', 'x [sandbox:fail]');
    const inFlight = await submit('sandbox.echo-chat', 'still waiting');
    const stop = new AbortController();
    expect(await gengate.executeTask.runGeneration(succeeded, stop.signal)).toBe('success');
    expect(await gengate.executeTask.runGeneration(failed, stop.signal)).toBe('fail');
    const files = ((await q<{ outputs: { key: string }[] }>('select outputs from gengate.tasks where id = $1', [succeeded])).rows[0]?.outputs ?? []).map((o) => o.key);
    expect(files.length).toBe(1);
    expect(await blobs.get(files[0] ?? '')).not.toBeNull();
    await q(`insert into gengate.callback_attempts (task_id, url, status_code, delivered, error, duration_ms) values
      ($1, 'https://receiver.example/cb', 200, true, null, 5), ($2, 'https://receiver.example/cb', 500, false, 'HTTP 500', 5)`, [succeeded, failed]);
    // A finished job row (pg-boss's completed state) of a gengate queue.
    const jobId = await boss.send(QUEUES.alertMail, { alertId: 'none', balanceMicro: 0 });
    const [job] = await boss.fetch(QUEUES.alertMail);
    expect(job?.id).toBe(jobId);
    await boss.complete(QUEUES.alertMail, jobId ?? '');
    const ledgerBefore = (await q('select * from gengate.transactions order by id')).rows;
    expect(ledgerBefore.some((t) => t['task_id'] === succeeded && t['payment_method'] === 'usage')).toBe(true);

    // The age is measured by the database clock: wait until both ended tasks and the job are older than one second.
    await waitFor(
      async () =>
        (await count(`gengate.tasks where id = any($1::uuid[]) and finished_at < now() - interval '1 second'`, [[succeeded, failed]])) === 2 &&
        (await count(`pgboss.job where id = $1 and completed_on < now() - interval '1 second'`, [jobId])) === 1
          ? true
          : null,
      { timeoutMs: 10_000, intervalMs: 100, what: 'the ended tasks to be one second old' },
    );
    const report = await runMaintenance([retentionStep({ retentionSeconds: 1 })], ctx);
    expect(report).toEqual({ 'purge-ended-tasks': 2 });

    expect((await q('select id, status from gengate.tasks')).rows).toEqual([{ id: inFlight, status: 'waiting' }]);
    expect(await count('gengate.holds where task_id = any($1::uuid[])', [[succeeded, failed]])).toBe(0);
    expect((await q('select task_id, state from gengate.holds')).rows).toEqual([{ task_id: inFlight, state: 'held' }]);
    expect(await count('gengate.callback_attempts', [])).toBe(0);
    expect(await blobs.get(files[0] ?? '')).toBeNull();
    expect(await count('pgboss.job where id = $1', [jobId])).toBe(0);
    expect((await q('select * from gengate.transactions order by id')).rows).toEqual(ledgerBefore);
    expect(await ledgerViolations(db.url)).toEqual([]);
    expect((await gengate.getTask.execute(user, inFlight)).status).toBe('waiting');

    // Nothing more to purge: a second run is a no-op.
    expect(await runMaintenance([retentionStep({ retentionSeconds: 1 })], ctx)).toEqual({ 'purge-ended-tasks': 0 });
  });
});
