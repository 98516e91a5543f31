import express from 'express';
import { pino } from 'pino';
import request from './support/contract-request.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGengateRouter } from '../src/http/create-router.js';
import { QUEUES } from '../src/postgres/boss-queues.js';
import { ended, FakeHookedAdapter, MODELS, newCaller, openWorkerHarness, signFakeWebhook, usageFor, VIDEO_PRICE_PER_SECOND, waitFor, type HostProcess, type WorkerHarness } from './support/worker-harness.js';

/** After its first status check, the hooked job is checked again only an hour later: within a test, only a webhook can end it. */
class HourlyCheckedHookedAdapter extends FakeHookedAdapter {
  override pollDelayMs(checkNumber = 1): number {
    return checkNumber <= 1 ? 20 : 3_600_000;
  }
}

describe('upstream completion webhooks', () => {
  const adapter = new HourlyCheckedHookedAdapter();
  let h: WorkerHarness;
  let host: HostProcess;
  let app: express.Express;

  beforeAll(async () => {
    h = await openWorkerHarness(() => [adapter]);
    host = await h.startProcess({
      core: { execution: { webhookUrl: (provider, taskId) => `https://gateway.example/api/v1/providers/${provider}/webhook?task=${taskId}` } },
    });
    app = express();
    app.use('/api/v1', createGengateRouter({ gengate: host.gengate, blobStore: h.blobs, logger: pino({ level: 'silent' }) }));
  });

  afterAll(async () => {
    await h?.close();
  });

  async function startHooked() {
    const auth = await newCaller(host.gengate, 100);
    const { task_id: taskId } = await host.gengate.submitRun.execute(auth, MODELS.hooked, { prompt: 'hook me', video_params: { duration: 5 } });
    await waitFor('the upstream job to start and be checked once', async () => ((adapter.statusCalls.get(taskId) ?? 0) >= 1 ? true : null));
    const url = adapter.webhookUrls.get(taskId);
    expect(url).toBe(`https://gateway.example/api/v1/providers/fake/webhook?task=${taskId}`);
    return { auth, taskId, path: new URL(url ?? '').pathname + new URL(url ?? '').search };
  }

  const send = (path: string, body: string, headers: Record<string, string>) =>
    request(app).post(path).set('Content-Type', 'application/json').set(headers).send(body);

  /** The task's status-check jobs as pg-boss recorded them, oldest first: number, and how long after its creation each was due. */
  async function checkJobs(taskId: string) {
    const { rows } = await h.pool.query<{ check: number; due_after_ms: number; state: string }>(
      `select (data->>'checkNumber')::int as check, (extract(epoch from start_after - created_on) * 1000)::int as due_after_ms, state::text as state
         from pgboss.job where name = $1 and data->>'taskId' = $2 order by (data->>'checkNumber')::int`,
      [QUEUES.check, taskId],
    );
    return rows;
  }

  it('a signed completion webhook ends the task through a check due at once that wakes the worker, with no status check, and charges once when delivered twice', async () => {
    const { auth, taskId, path } = await startHooked();
    // The chain as it stands: check 1 ran (the upstream said running) and check 2 is due an hour later.
    await waitFor('the next regular check to be scheduled', async () => ((await checkJobs(taskId)).some((j) => j.check === 2) ? true : null));
    const checksBefore = adapter.statusCalls.get(taskId) ?? 0;
    const notify = vi.spyOn(host.boss, 'notifyWorker'); // passes through, recording which workers were woken
    const body = JSON.stringify({ job: `${taskId}#1`, state: 'done' });
    const res = await send(path, body, signFakeWebhook(body));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, applied: true, reason: null });
    // The webhook scheduled check 3, due at once; the regular check 2 stays an hour away (and is now stale).
    // A worker may have run check 3 already: its success removes its job in the same commit
    // (gengate_remove_job), so its row is read only while it is there; that the task ends below, with no
    // status call and check 2 an hour away, is check 3's doing either way.
    const jobs = await checkJobs(taskId);
    expect(jobs.map((j) => j.check).filter((n) => n !== 3)).toEqual([1, 2]);
    expect(jobs[1]!.due_after_ms).toBeGreaterThan(3_500_000);
    const third = jobs.find((j) => j.check === 3);
    if (third) expect(third.due_after_ms).toBeLessThanOrEqual(0);
    // So the task can only end through the webhook's check: it does, reading the webhook, not the upstream.
    const task = await ended(host.stores, taskId);
    const wip = host.boss.getWipData();
    const wokenQueues = notify.mock.calls.map(([id]) => wip.find((w) => w.id === id)?.name);
    notify.mockRestore();
    expect(task.status).toBe('success');
    expect(adapter.statusCalls.get(taskId) ?? 0).toBe(checksBefore);
    // And its check did not wait for the check workers' polling: the webhook's commit woke one of them.
    expect(wokenQueues).toContain(QUEUES.check);
    // The webhook's check 3 is the one that ran (the success removed its job in its own commit); the regular
    // check 2 never did.
    const after = await checkJobs(taskId);
    expect(after.map((j) => j.check)).toEqual([1, 2]);
    expect(after[1]!.state).toBe('created');
    const again = await send(path, body, signFakeWebhook(body));
    expect(again.body).toEqual({ received: true, applied: false, reason: 'task is success' });
    expect(await usageFor(host.stores, auth.userId, taskId)).toHaveLength(1);
    expect((await host.stores.ledger.getBalance(auth.userId)).balanceMicro).toBe(100_000_000 - 5 * VIDEO_PRICE_PER_SECOND);
  });

  it('refuses a forged, stale or unsigned webhook with a 400 and changes nothing', async () => {
    const { taskId, path } = await startHooked();
    const body = JSON.stringify({ job: `${taskId}#1`, state: 'done' });
    const forged = { ...signFakeWebhook(body), 'x-fake-signature': '0'.repeat(64) };
    const stale = signFakeWebhook(body, Math.floor(Date.now() / 1000) - 3_600);
    for (const headers of [forged, stale, {}]) {
      const res = await send(path, body, headers);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ type: 'invalid_request', param: 'signature' });
    }
    const task = await host.stores.tasks.findById(taskId);
    expect(task).toMatchObject({ status: 'generating', webhookPayload: null });
    const done = JSON.stringify({ job: `${taskId}#1`, state: 'done' });
    expect((await send(path, done, signFakeWebhook(done))).body.applied).toBe(true);
    expect((await ended(host.stores, taskId)).status).toBe('success');
  });

  it('acknowledges and ignores a webhook for an unknown task or another upstream job', async () => {
    const { taskId, path } = await startHooked();
    const other = JSON.stringify({ job: 'someone-else#1', state: 'done' });
    expect((await send(path, other, signFakeWebhook(other))).body).toEqual({ received: true, applied: false, reason: 'another upstream job' });
    const unknown = JSON.stringify({ job: 'x#1', state: 'done' });
    const res = await send('/api/v1/providers/fake/webhook?task=00000000-0000-4000-8000-000000000000', unknown, signFakeWebhook(unknown));
    expect(res.body).toEqual({ received: true, applied: false, reason: 'unknown task' });
    expect((await host.stores.tasks.findById(taskId))?.status).toBe('generating');
    expect((await send('/api/v1/providers/nobody/webhook', unknown, signFakeWebhook(unknown))).status).toBe(404);
    const fail = JSON.stringify({ job: `${taskId}#1`, state: 'failed' });
    await send(path, fail, signFakeWebhook(fail));
    const task = await ended(host.stores, taskId);
    expect(task.status).toBe('fail');
    expect(task.errorMessage).toContain('the upstream job failed');
  });
});
