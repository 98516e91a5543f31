import { readOutput, type AuthContext } from '@gengate/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { QUEUES } from '../src/postgres/boss-queues.js';
import { localWakerOf, registerLocalWaker } from '../src/postgres/job-wakeups.js';
import {
  ended,
  expectBalanceInvariant,
  FakeAdapter,
  IMAGE_PRICE,
  MODELS,
  MP4_BYTES,
  newCaller,
  openWorkerHarness,
  PNG_BYTES,
  usageFor,
  VIDEO_PRICE_PER_SECOND,
  waitFor,
  type HostProcess,
  type WorkerHarness,
} from './support/worker-harness.js';

describe('generation worker on PostgreSQL', () => {
  const adapter = new FakeAdapter();
  let h: WorkerHarness;
  let host: HostProcess;

  async function submit(auth: AuthContext, modelId: string, body: unknown = { prompt: 'a red fox' }): Promise<string> {
    const accepted = await host.gengate.submitRun.execute(auth, modelId, body);
    expect(accepted).toMatchObject({ code: 200, status: 'waiting' });
    return accepted.task_id;
  }

  beforeAll(async () => {
    h = await openWorkerHarness(() => [adapter]);
    host = await h.startProcess();
  });

  afterAll(async () => {
    await h?.close();
  });

  it('takes a one-shot image task to success: output stored, one usage transaction, costs and upstream metadata kept', async () => {
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.image);
    const task = await ended(host.stores, taskId);
    expect(task).toMatchObject({
      status: 'success',
      errorMessage: null,
      chargedMicro: IMAGE_PRICE,
      costMicro: IMAGE_PRICE,
      quotedMicro: IMAGE_PRICE,
      attempts: 1,
      usage: { images: 1 },
      upstreamMetadata: { requestId: `req_${taskId.slice(0, 8)}`, finishReason: 'stop' },
    });
    // Each attempt stores under names of its own: output-<n>-<attempt>.<ext>; a file this small is kept with the task.
    expect(task.outputs).toEqual([{ key: expect.stringMatching(new RegExp(`^${taskId}/output-0-[0-9a-f]{12}\\.png$`)), mediaType: 'image/png', bytes: PNG_BYTES.byteLength, inline: true }]);
    const output = task.outputs[0];
    const key = output?.key ?? '';
    expect(await h.blobs.get(key)).toBeNull();
    const blob = output ? await readOutput(h.blobs, task, output) : null;
    expect(Buffer.from(blob?.data ?? []).equals(Buffer.from(PNG_BYTES))).toBe(true);

    const view = await host.gengate.getTask.execute(auth, taskId);
    expect(view).toEqual({
      task_id: taskId,
      status: 'success',
      error_message: null,
      created_at: expect.any(String),
      result_urls: [`http://127.0.0.1:9/api/v1/files/${key}`],
    });
    // A provider model is its own one route. Its first and only attempt succeeded: the breaker heard of it,
    // the attempt log (migration 021) stays empty (one statement fewer per task), and the poll answers the
    // interface document's Task (route and extensions are shown for routed tasks only).
    expect((await host.stores.tasks.findById(taskId))?.routeAttempts).toEqual([]);
    const usage = await usageFor(host.stores, auth.userId, taskId);
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ creditsMicro: -IMAGE_PRICE, amountMicroUsd: IMAGE_PRICE / 100, status: 'completed' });
    expect(await host.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - IMAGE_PRICE, heldMicro: 0 });
    expect(adapter.generateCalls.get(taskId)).toBe(1);
    await expectBalanceInvariant(host.stores, auth.userId);
  });

  it('ends a task refused upstream in fail at once: actionable message with the upstream request id, no charge, hold released', async () => {
    const auth = await newCaller(host.gengate, 10);
    const taskId = await submit(auth, MODELS.broken);
    const task = await ended(host.stores, taskId);
    expect(task.status).toBe('fail');
    expect(task.errorMessage).toBe('Provider fake refused the request as invalid: boom (upstream request id req_broken). No credits were charged.');
    expect(task.upstreamMetadata).toEqual({ requestId: 'req_broken' });
    expect(task.outputs).toEqual([]);
    expect(task.chargedMicro).toBeNull();
    expect(await usageFor(host.stores, auth.userId, taskId)).toEqual([]);
    expect(await host.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 10_000_000, heldMicro: 0 });
    expect(adapter.generateCalls.get(taskId)).toBe(1);
    await expectBalanceInvariant(host.stores, auth.userId);
  });

  it('drives a long-running task through start and scheduled status checks, persisting its handle and progress', async () => {
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.video, { prompt: 'a paper boat', video_params: { duration: 5, resolution: '720p' } });
    const task = await ended(host.stores, taskId);
    expect(task.status).toBe('success');
    expect(task.upstreamHandle).toEqual({ job: `${taskId}#1`, model: MODELS.video });
    // The start's warnings were stored with its handle, not recomputed at status time.
    expect(task.warnings).toEqual([{ param: 'video_params.resolution', message: 'start #1 adjusted it' }]);
    expect(task.pollSeq).toBe(3);
    expect(adapter.startCalls.get(taskId)).toBe(1);
    expect(adapter.statusCalls.get(taskId)).toBe(3);
    expect(task.outputs).toEqual([{ key: expect.stringMatching(new RegExp(`^${taskId}/output-0-[0-9a-f]{12}\\.mp4$`)), mediaType: 'video/mp4', bytes: MP4_BYTES.byteLength, inline: true }]);
    const price = 5 * VIDEO_PRICE_PER_SECOND;
    expect(task).toMatchObject({ chargedMicro: price, usage: { videoSeconds: 5 } });
    expect(await usageFor(host.stores, auth.userId, taskId)).toHaveLength(1);
    expect(await host.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - price, heldMicro: 0 });
    await expectBalanceInvariant(host.stores, auth.userId);
  });

  it('shows upstream progress on the poll response while generating', async () => {
    adapter.gateOpen = false;
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.gated, { prompt: 'progress', video_params: { duration: 5 } });
    const view = await waitFor('progress', async () => {
      const v = await host.gengate.getTask.execute(auth, taskId);
      return v.progress !== undefined ? v : null;
    });
    expect(view).toMatchObject({ status: 'generating', progress: 0.5 });
    // Stored at start: the task shows the start's warnings while it is still generating.
    expect((await host.stores.tasks.findById(taskId))?.warnings).toEqual([{ param: 'video_params.resolution', message: 'start #1 adjusted it' }]);
    adapter.gateOpen = true;
    const done = await ended(host.stores, taskId);
    expect(done.status).toBe('success');
    expect('progress' in (await host.gengate.getTask.execute(auth, taskId))).toBe(false);
  });

  it('retries a retryable upstream failure as a new attempt and ends in success', async () => {
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.flaky);
    const task = await ended(host.stores, taskId, 45_000);
    expect(task.status).toBe('success');
    expect(task.attempts).toBe(2);
    expect(adapter.generateCalls.get(taskId)).toBe(2);
    expect(await usageFor(host.stores, auth.userId, taskId)).toHaveLength(1);
    expect(await host.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - IMAGE_PRICE, heldMicro: 0 });
    await expectBalanceInvariant(host.stores, auth.userId);
  });

  it('waits at least the upstream Retry-After before the next attempt', async () => {
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.limited);
    const task = await ended(host.stores, taskId, 45_000);
    expect(task.status).toBe('success');
    const [first, second] = adapter.generateAt.get(taskId) ?? [];
    expect(second! - first!).toBeGreaterThanOrEqual(1_000);
  });

  it('starts a new upstream job when the running one fails retryably (the dead handle is cleared, never polled again)', async () => {
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.flakyVideo, { prompt: 'again', video_params: { duration: 5 } });
    const task = await ended(host.stores, taskId, 45_000);
    expect(task.status).toBe('success');
    expect(adapter.startCalls.get(taskId)).toBe(2);
    expect(task.upstreamHandle).toEqual({ job: `${taskId}#2`, model: MODELS.flakyVideo });
    expect(task.warnings, 'the dead job\'s start warnings are replaced by the new start\'s').toEqual([{ param: 'video_params.resolution', message: 'start #2 adjusted it' }]);
    expect(adapter.statusCalls.get(`${taskId}#1`)).toBe(1);
    expect(task.attempts).toBe(2);
    expect(await usageFor(host.stores, auth.userId, taskId)).toHaveLength(1);
  });

  it('checks again later when a status check cannot reach the upstream, without starting a new job', async () => {
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.shakyStatus, { prompt: 'shaky', video_params: { duration: 5 } });
    const task = await ended(host.stores, taskId, 45_000);
    expect(task.status).toBe('success');
    expect(adapter.startCalls.get(taskId)).toBe(1);
    expect(task.attempts).toBe(1);
  });

  it('resumes a long-running task after a worker restart, checking the persisted handle without starting it again', async () => {
    adapter.gateOpen = false;
    const auth = await newCaller(host.gengate, 100);
    const taskId = await submit(auth, MODELS.gated, { prompt: 'restart me', video_params: { duration: 10 } });
    const price = 10 * VIDEO_PRICE_PER_SECOND;
    await waitFor('the first worker to check the upstream', async () => {
      const t = await host.stores.tasks.findById(taskId);
      return t?.status === 'generating' && t.upstreamHandle !== null && (adapter.statusCalls.get(taskId) ?? 0) >= 2 ? t : null;
    });
    await host.stop();

    const stalled = await h.pool.query<{ status: string; attempts: number }>('select status, attempts from gengate.tasks where id = $1', [taskId]);
    expect(stalled.rows[0]).toEqual({ status: 'generating', attempts: 1 });
    const checkedBefore = adapter.statusCalls.get(taskId) ?? 0;

    host = await h.startProcess();
    await waitFor('the new worker to check the persisted handle', async () => ((adapter.statusCalls.get(taskId) ?? 0) > checkedBefore ? true : null));
    adapter.gateOpen = true;
    const task = await ended(host.stores, taskId, 45_000);
    expect(task.status).toBe('success');
    expect(adapter.startCalls.get(taskId)).toBe(1);
    expect(task.upstreamHandle).toEqual({ job: `${taskId}#1`, model: MODELS.gated });
    expect(await usageFor(host.stores, auth.userId, taskId)).toHaveLength(1);
    expect(await host.stores.ledger.getBalance(auth.userId)).toEqual({ balanceMicro: 100_000_000 - price, heldMicro: 0 });
    await expectBalanceInvariant(host.stores, auth.userId);
  });

  it('starts waiting tasks promptly: each submission wakes the generation dispatcher (NOTIFY), not left to the poll interval', async () => {
    const auth = await newCaller(host.gengate, 100);
    const dispatcher = localWakerOf(host.boss, QUEUES.generate);
    expect(dispatcher).toBeDefined();
    const wake = vi.fn(() => dispatcher?.());
    registerLocalWaker(host.boss, QUEUES.generate, wake); // passes through, recording each wake-up
    try {
      for (let i = 0; i < 5; i++) {
        wake.mockClear();
        const task = await ended(host.stores, await submit(auth, MODELS.image));
        expect(task.status).toBe('success');
        expect(wake.mock.calls.length, `submission ${i + 1}`).toBeGreaterThan(0);
      }
    } finally {
      if (dispatcher) registerLocalWaker(host.boss, QUEUES.generate, dispatcher);
    }
    // How soon a woken worker starts a task is a figure of `npm run bench` (dispatch_idle), not a bound here.
  });
});
