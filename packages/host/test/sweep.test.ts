import { STUCK_MESSAGE } from '@gengate/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMaintenance, taskSweepStep } from '../src/jobs/maintenance-worker.js';
import { FakeAdapter, IMAGE_PRICE, MODELS, logger, newCaller, openWorkerHarness, type HostProcess, type WorkerHarness } from './support/worker-harness.js';
import { DEFAULT_SCHEMA } from '../src/postgres/schema.js';

describe('the task sweep', () => {
  let h: WorkerHarness;
  let host: HostProcess;

  beforeAll(async () => {
    h = await openWorkerHarness(() => [new FakeAdapter()]);
    host = await h.startProcess({ worker: false });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('ends tasks stuck past their deadline plus the margin in fail, releasing their holds, and leaves the others alone', async () => {
    const auth = await newCaller(host.gengate, 100);
    const stuck = (await host.gengate.submitRun.execute(auth, MODELS.image, { prompt: 'stuck' })).task_id;
    const lostJob = (await host.gengate.submitRun.execute(auth, MODELS.image, { prompt: 'lost job' })).task_id;
    const fresh = (await host.gengate.submitRun.execute(auth, MODELS.image, { prompt: 'fresh' })).task_id;
    await h.pool.query(`update gengate.tasks set status = 'generating', started_at = now() - interval '20 minutes' where id = $1`, [stuck]);
    await h.pool.query(`update gengate.tasks set created_at = now() - interval '2 hours' where id = $1`, [lostJob]);
    expect((await host.stores.ledger.getBalance(auth.userId)).heldMicro).toBe(3 * IMAGE_PRICE);

    const { failed } = await host.gengate.sweepTasks.execute({ marginMs: 60_000, admittedGraceMs: 30 * 60_000 });
    expect(failed.sort()).toEqual([stuck, lostJob].sort());
    for (const id of [stuck, lostJob]) expect(await host.stores.tasks.findById(id)).toMatchObject({ status: 'fail', errorMessage: STUCK_MESSAGE });
    expect((await host.stores.tasks.findById(fresh))?.status).toBe('waiting');
    expect(await host.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000, heldMicro: IMAGE_PRICE });
    expect((await host.gengate.sweepTasks.execute({ marginMs: 60_000 })).failed).toEqual([]);
  });

  it('admits queued tasks of users that have free running slots', async () => {
    const auth = await newCaller(host.gengate, 100);
    const queued = (await host.gengate.submitRun.execute(auth, MODELS.image, { prompt: 'queued' })).task_id;
    // A queued task: not admitted and without a job (as a task behind the user's running slots is).
    await h.pool.query('update gengate.tasks set admitted = false where id = $1', [queued]);
    await h.pool.query(`delete from pgboss.job where data->>'taskId' = $1`, [queued]);
    const { admitted } = await host.gengate.sweepTasks.execute();
    expect(admitted).toContain(queued);
    expect((await host.stores.tasks.findById(queued))?.admitted).toBe(true);
    const { rows } = await h.pool.query<{ n: number }>(`select count(*)::int as n from pgboss.job where name = 'gengate-generate' and data->>'taskId' = $1`, [queued]);
    expect(rows[0]?.n).toBe(1);
  });

  it('is a step of the maintenance sweep (the host runs it on MAINTENANCE_CRON)', async () => {
    const auth = await newCaller(host.gengate, 100);
    const stuck = (await host.gengate.submitRun.execute(auth, MODELS.image, { prompt: 'stuck for hours' })).task_id;
    await h.pool.query(`update gengate.tasks set status = 'generating', started_at = now() - interval '3 hours' where id = $1`, [stuck]);
    const report = await runMaintenance([taskSweepStep(host.gengate.sweepTasks)], { db: h.pool, schema: DEFAULT_SCHEMA, blobStore: h.blobs, logger });
    expect(report['end-stuck-tasks-and-admit-queued']).toBeGreaterThanOrEqual(1);
    expect(await host.stores.tasks.findById(stuck)).toMatchObject({ status: 'fail', errorMessage: STUCK_MESSAGE });
    expect((await host.stores.ledger.getBalance(auth.userId)).heldMicro).toBe(0);
  });
});
